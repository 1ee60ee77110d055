import Forge
import Testing

let leftRightBarrier = Barrier(2)

final class LeftContainer: Container, @unchecked Sendable {
  static let shared = LeftContainer()
  var left: Service {
    provide(.singleton) {
      leftRightBarrier.arrive()
      return Service("left of \(RightContainer.shared.right.label)")
    }
  }
}

final class RightContainer: Container, @unchecked Sendable {
  static let shared = RightContainer()
  var right: Service {
    provide(.singleton) {
      leftRightBarrier.arrive()
      return Service("right of \(LeftContainer.shared.left.label)")
    }
  }
}

@Suite("A cycle across containers", .timeLimit(.minutes(1)))
struct CrossContainerCycleTests {
  @Test("two threads closing a cycle across two containers stop with its path instead of hanging")
  func twoThreads() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = RealThread { _ = LeftContainer.shared.left }
      _ = RealThread { _ = RightContainer.shared.right }
      exitIfStillRunning(after: 20)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("Dependency cycle: "))
    #expect(stderr.contains("LeftContainer.left"))
    #expect(stderr.contains("RightContainer.right"))
    #expect(!beforeBacktrace(stderr).contains("hang"))
  }
}
