import Forge
import ForgeTestSupport
import Testing

/// Notes in a shared log when it is shut down; throws when told to.
final class Stoppable: GracefulShutdown {
  let name: String
  let log: Guarded<[String]>
  let fails: Bool
  let dependencies: [Stoppable]
  init(_ name: String, log: Guarded<[String]>, fails: Bool = false, dependencies: [Stoppable] = []) {
    self.name = name
    self.log = log
    self.fails = fails
    self.dependencies = dependencies
  }
  struct Failed: Error {}
  func shutdown() async throws {
    log.withLock { $0.append(name) }
    if fails { throw Failed() }
  }
}

final class LifecycleContainer: Container, @unchecked Sendable {
  let log = Guarded<[String]>([])
  var database: Stoppable { provide(.singleton) { Stoppable("database", log: self.log) } }
  var cache: Stoppable { provide(.cached) { Stoppable("cache", log: self.log, fails: true) } }
  var repository: Stoppable {
    provide(.singleton) { Stoppable("repository", log: self.log, dependencies: [self.database, self.cache]) }
  }
  var plain: [Int] { provide(.singleton) { [1] } }
  var server: Stoppable { provide(.singleton) { Stoppable("server", log: self.log, dependencies: [self.repository]) } }
}

@Suite("Forge: shutdown()", .timeLimit(.minutes(1)))
struct ShutdownTests {
  @Test("dependents shut down before their dependencies, every error is collected")
  func order() async {
    let container = LifecycleContainer()
    _ = container.server
    _ = container.plain
    let report = await container.shutdown()
    #expect(container.log.withLock { $0 } == ["server", "repository", "cache", "database"])
    #expect(
      report.stopped == [
        "LifecycleContainer.server", "LifecycleContainer.repository", "LifecycleContainer.cache",
        "LifecycleContainer.database",
      ])
    #expect(report.failures.map(\.dependency) == ["LifecycleContainer.cache"])
    #expect(!report.isClean)
    #expect(report.description.contains("- failed: LifecycleContainer.cache"))
    // A second call finds nothing.
    #expect(await container.shutdown().stopped.isEmpty)
  }

  @Test("after shutdown a resolution stops with a message")
  func resolveAfterShutdown() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = LifecycleContainer()
      _ = container.database
      await container.shutdown()
      _ = container.database
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "[Forge.shutDown] LifecycleContainer.database was resolved after its container shut down."))
  }
}
