import Forge
import ForgeInject
import ForgeTestSupport
import ForgeTesting
import SwiftPod
import Testing

/// A shared container whose singletons stop when it shuts down; tests of
/// shutdown isolate it.
final class StoppingContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = StoppingContainer()
  let log = Guarded<[String]>([])
  var database: StoppablePart { provide(.singleton) { StoppablePart("database", log: self.log) } }
  var server: StoppablePart { provide(.singleton) { StoppablePart("server", log: self.log, [self.database]) } }
}

let stoppingPod = SwiftPod()
let stoppingDatabase = Provider("database") { _ in StoppablePart("database", log: stoppingLog) }
let stoppingLog = Guarded<[String]>([])

@Suite("ForgeTesting: shutdown() of an isolated container", .timeLimit(.minutes(1)))
struct IsolatedShutdownTests {
  @Test(
    "40 tests in parallel each shut the shared container down for themselves; the container goes on",
    arguments: 0..<40)
  func parallelShutdowns(case number: Int) async throws {
    let real = StoppingContainer.shared.server
    try await withIsolatedContainers(StoppingContainer.shared, stoppingPod) {
      let server = StoppingContainer.shared.server
      #expect(server !== real)
      _ = stoppingPod.resolve(stoppingDatabase)
      try await Task.sleep(for: .milliseconds(2))
      let report = await StoppingContainer.shared.shutdown()
      #expect(report.stopped == ["StoppingContainer.server", "StoppingContainer.database"])
      // A second shutdown in the test finds nothing left.
      #expect(await StoppingContainer.shared.shutdown().stopped.isEmpty)
      #expect(await stoppingPod.shutdown().stopped == ["database"])
    }
    // Outside the test, the container's own instances are kept and working.
    #expect(StoppingContainer.shared.server === real)
    #expect(stoppingPod.resolve(stoppingDatabase).name == "database")
  }

  @Test("the container's own instances are not stopped by a test's shutdown")
  func containerInstancesKept() async {
    let container = StoppingContainer()
    _ = container.server
    await withIsolatedContainers(container) {
      _ = container.server
      #expect(await container.shutdown().stopped == ["StoppingContainer.server", "StoppingContainer.database"])
    }
    // Two stopped, the test's; the container's are stopped by its own shutdown.
    #expect(container.log.withLock { $0 } == ["server", "database"])
    #expect(await container.shutdown().stopped == ["StoppingContainer.server", "StoppingContainer.database"])
    #expect(container.log.withLock { $0 } == ["server", "database", "server", "database"])
  }

  @Test("after a test's shutdown, a resolution in that test fails; others still resolve")
  func resolutionAfterScopedShutdown() async throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in StoppablePart("pool", log: Guarded([])) }
    try await withIsolatedContainers(container) {
      _ = try container.resolve() as StoppablePart
      #expect(await container.shutdown().stopped == ["ForgeTestSupport.StoppablePart"])
      #expect {
        _ = try container.resolve() as StoppablePart
      } throws: { error in
        String(describing: error).contains(
          "[Forge.shutDown] ForgeTestSupport.StoppablePart was resolved after its container shut down")
      }
      // Another test, running beside this one, is not affected.
      let other = Task.detached { try container.resolve() as StoppablePart }
      _ = try await other.value
    }
    _ = try container.resolve() as StoppablePart
  }

  @Test("after a test's shutdown, its registration that builds on every resolution is not served either")
  func buildEachTimeRegistrationAfterScopedShutdown() async throws {
    let container = ForgeContainer()
    container.register { _ in "real" }
    let builds = Guarded(0)
    try await withIsolatedContainers(container) {
      $0.register(in: container, with: .transient) { _ in
        builds.withLock { $0 += 1 }
        return "test"
      }
    } operation: {
      let first: String = try container.resolve()
      #expect(first == "test")
      #expect(await container.shutdown().stopped.isEmpty)
      #expect {
        _ = try container.resolve() as String
      } throws: { error in
        String(describing: error).contains("[Forge.shutDown] Swift.String was resolved after its container shut down")
      }
      #expect(builds.withLock { $0 } == 1)
      // Another test, running beside this one, is not affected.
      let other = try await Task.detached { try container.resolve() as String }.value
      #expect(other == "real")
    }
    let after: String = try container.resolve()
    #expect(after == "real")
  }

  @Test("a test's shutdown stops what its own registrations and overrides kept, dependents first")
  func testRegistrationsStopped() async throws {
    let log = Guarded<[String]>([])
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in StoppablePart("real pool", log: log) }
    let engine = Provider("engine") { _ in StoppablePart("real engine", log: log) }
    let car = Provider("car") { pod in StoppablePart("car", log: log, [pod.resolve(engine)]) }
    let pod = SwiftPod()
    try await withIsolatedContainers(container, pod) {
      $0.overrideProvider(engine, in: pod) { _ in StoppablePart("test engine", log: log) }
    } operation: {
      container.register(with: .singleton) { _ in StoppablePart("test pool", log: log) }
      _ = try container.resolve() as StoppablePart
      _ = pod.resolve(car)
      #expect(await container.shutdown().stopped == ["ForgeTestSupport.StoppablePart (test)"])
      #expect(await pod.shutdown().stopped == ["car", "engine (override)"])
    }
    #expect(log.withLock { $0 } == ["test pool", "car", "test engine"])
    // The container's and the pod's own are untouched.
    #expect((try container.resolve() as StoppablePart).name == "real pool")
    #expect(pod.resolve(engine).name == "real engine")
  }
}
