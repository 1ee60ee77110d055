import Forge
import Testing

/// A container whose `label` says which one it is, reachable through the
/// base type for `ContainerInject<Container, T>`.
final class LabelledContainer: Container, @unchecked Sendable {
  let name: String
  init(name: String) { self.name = name }
  var service: Service { provide(.singleton) { Service(self.name) } }
}

extension Container {
  var labelledService: Service { (self as! LabelledContainer).service }
}

@Suite("Forge.withDefaultContainer", .timeLimit(.minutes(1)))
struct DefaultContainerSwapTests {
  final class Consumer {
    @ContainerInject<Container, Service>(\.labelledService) var service
  }

  @Test("each task swaps the default container for itself; the process-wide one stays")
  func perTask() async {
    let before = Forge.defaultContainer
    await withTaskGroup(of: (Int, String).self) { group in
      for index in 0..<20 {
        group.addTask {
          await Forge.withDefaultContainer(LabelledContainer(name: "c\(index)")) {
            await Task.yield()
            return (index, Consumer().service.label)
          }
        }
      }
      for await (index, label) in group {
        #expect(label == "c\(index)")
      }
    }
    #expect(Forge.defaultContainer === before)
  }

  @Test("a task started inside keeps the swapped container, as a task-local does")
  func inheritedByChildTasks() async {
    let label = await Forge.withDefaultContainer(LabelledContainer(name: "inner")) {
      await Task { Consumer().service.label }.value
    }
    #expect(label == "inner")
  }

  @Test("the synchronous form swaps it for the closure, on real threads each with their own")
  func synchronousForm() {
    let before = Forge.defaultContainer
    let labels = Guarded<[Int: String]>([:])
    onThreads(4) { index in
      let label = Forge.withDefaultContainer(LabelledContainer(name: "t\(index)")) {
        Consumer().service.label
      }
      labels.withLock { $0[index] = label }
    }
    #expect(labels.withLock { $0 } == [0: "t0", 1: "t1", 2: "t2", 3: "t3"])
    #expect(Forge.defaultContainer === before)
  }
}
