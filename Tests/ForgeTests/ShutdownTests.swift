import Forge
import ForgeTestSupport
import Testing

final class LifecycleContainer: Container, @unchecked Sendable {
  let log = Guarded<[String]>([])
  var database: StoppablePart { provide(.singleton) { StoppablePart("database", log: self.log) } }
  var cache: StoppablePart { provide(.cached) { StoppablePart("cache", log: self.log, fails: true) } }
  var repository: StoppablePart {
    provide(.singleton) { StoppablePart("repository", log: self.log, [self.database, self.cache]) }
  }
  var plain: [Int] { provide(.singleton) { [1] } }
  var server: StoppablePart { provide(.singleton) { StoppablePart("server", log: self.log, [self.repository]) } }
  let buildStarted = Signal()
  let release = Signal()
  /// Resolves `database`, then waits for `release` on its thread.
  var slowClient: StoppablePart {
    provide(.singleton) {
      let database = self.database
      self.buildStarted.raise()
      self.release.wait()
      return StoppablePart("client", log: self.log, [database])
    }
  }
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

  @Test("a build in progress on another thread ends first, and its instance is stopped before what it resolved")
  func waitsForBuildOnThread() async throws {
    let container = LifecycleContainer()
    let built = Guarded<StoppablePart?>(nil)
    let thread = RealThread { built.withLock { $0 = container.slowClient } }
    #expect(container.buildStarted.wait())
    let (shutdown, returnedEarly) = await shutdownInBackground(container)
    #expect(!returnedEarly, "shutdown() returned while the build was in progress")
    container.release.raise()
    let report = await shutdown.value
    thread.join()
    #expect(built.withLock { $0?.name } == "client")
    #expect(report.stopped == ["LifecycleContainer.slowClient", "LifecycleContainer.database"])
    #expect(container.log.withLock { $0 } == ["client", "database"])
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
