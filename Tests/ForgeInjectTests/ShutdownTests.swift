import ForgeInject
import ForgeTestSupport
import Testing

@Suite("ForgeInject: shutdown()", .timeLimit(.minutes(1)))
struct ShutdownTests {
  final class Pool: GracefulShutdown {
    let log: Guarded<[String]>
    init(log: Guarded<[String]>) { self.log = log }
    func shutdown() async throws { log.withLock { $0.append("pool") } }
  }
  final class Service: GracefulShutdown {
    let log: Guarded<[String]>
    init(pool: Pool, log: Guarded<[String]>) { self.log = log }
    func shutdown() async throws { log.withLock { $0.append("service") } }
  }

  @Test("dependents first; afterwards resolve() throws the shutdown diagnostic")
  func orderAndAfter() async throws {
    let log = Guarded<[String]>([])
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Pool(log: log) }
    container.register(with: .singleton) { c in Service(pool: try c.resolve(), log: log) }
    _ = try container.resolve() as Service
    let report = await container.shutdown()
    #expect(report.isClean)
    #expect(log.withLock { $0 } == ["service", "pool"])
    #expect {
      _ = try container.resolve() as Pool
    } throws: { error in
      String(describing: error).contains("[Forge.shutDown] ForgeInjectTests.ShutdownTests.Pool was resolved after")
    }
  }

  @Test("a build that resolves after a cancelled shutdown fails with the chain that led there")
  func resolvedAfterCancelledShutdown() async throws {
    let log = Guarded<[String]>([])
    let gate = AsyncGate()
    let started = Counter()
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Pool(log: log) }
    container.register(with: .singleton) { c async throws in
      started.increment()
      await gate.wait()
      return Service(pool: try c.resolve(), log: log)
    }
    let reader = Task { try await container.resolveAsync() as Service }
    while started.count == 0 { await Task.yield() }
    let shutdown = Task { await container.shutdown() }
    shutdown.cancel()
    #expect(await shutdown.value.isClean)
    gate.open()
    await #expect {
      _ = try await reader.value
    } throws: { error in
      String(describing: error).contains(
        "[Forge.shutDown] ForgeInjectTests.ShutdownTests.Pool was resolved after its container shut down. "
          + "Chain: ForgeInjectTests.ShutdownTests.Service → ForgeInjectTests.ShutdownTests.Pool.")
    }
  }
}
