import DependencyFetcher
import ForgeTestSupport
import Testing

let fetcherBarrier = Barrier(2)
let leftFetcher = Fetcher.createDefault()
let rightFetcher = Fetcher.createDefault()

extension Service where T == Thing {
  static let leftSide: Service<Thing> = Service("leftSide") { () -> Thing in
    fetcherBarrier.arrive()
    return Thing("left of \(rightFetcher.fetch(Service<Thing>.rightSide).label)")
  }
  static let rightSide: Service<Thing> = Service("rightSide") { () -> Thing in
    fetcherBarrier.arrive()
    return Thing("right of \(leftFetcher.fetch(Service<Thing>.leftSide).label)")
  }
}

@Suite("DependencyFetcher: the engine's regressions", .timeLimit(.minutes(1)))
struct FetcherEngineRegressionTests {
  @Test("two threads closing a cycle across two fetchers stop with its path instead of hanging")
  func crossFetcherCycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = RealThread { _ = leftFetcher.fetch(Service<Thing>.leftSide) }
      _ = RealThread { _ = rightFetcher.fetch(Service<Thing>.rightSide) }
      exitIfStillRunning(after: 20)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("Dependency cycle: "))
    #expect(stderr.contains("leftSide → rightSide") || stderr.contains("rightSide → leftSide"))
    #expect(!beforeBacktrace(stderr).contains("hang"))
  }
}
