import Forge
import ForgeCore
import ForgeInject
import ForgeTestSupport
import ForgeTesting
import Testing

/// A ForgeInject read while a scope is live somewhere is served before the
/// locked path when nothing the scope holds applies to it (the published
/// instance), and goes on to that path when something does. These pin down
/// what applies: each fails if the short read skips that check.
@Suite("ForgeInject: reads while a scope is live", .timeLimit(.minutes(1)))
struct RegisteredScopedReadTests {
  static func container() -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Poller() }
    container.register(with: .transient) { _ in Indexer() }
    return container
  }

  @Test("beside another task's scope, a task and a thread read the container's instance")
  func besideAScope() async throws {
    let container = Self.container()
    let real: Poller = try container.resolve()
    let entered = Signal()
    let leave = Signal()
    let other = ScopedReadContainer()
    async let inScope: Bool = other.withOverrides {
      $0.override(\.value) { 99 }
    } run: {
      entered.raise()
      while !leave.isRaised { await Task.yield() }
      return true
    }
    while !entered.isRaised { await Task.yield() }
    #expect(try container.resolve() as Poller === real)
    let fromThread = Guarded<Poller?>(nil)
    RealThread { fromThread.withLock { $0 = try? container.resolve() as Poller } }.join()
    #expect(fromThread.withLock { $0 } === real)
    leave.raise()
    #expect(await inScope)
  }

  @Test("in a scope that leaves the container alone: its kept instance, and a new transient each time")
  func inAnUnrelatedScope() throws {
    let container = Self.container()
    let real: Poller = try container.resolve()
    let first: Indexer = try container.resolve()
    try ScopedReadContainer().withOverrides {
      $0.override(\.value) { 99 }
    } run: {
      #expect(try container.resolve() as Poller === real)
      let again: Indexer = try container.resolve()
      #expect(again !== first)
      #expect(try container.resolve() as Indexer !== again)
    }
  }

  @Test("in a test that isolates the container: the test's own instance, not the published one")
  func isolated() throws {
    let container = Self.container()
    let real: Poller = try container.resolve()
    let inTest = try withIsolatedContainers(container) { try container.resolve() as Poller }
    #expect(inTest !== real)
    #expect(try container.resolve() as Poller === real)
  }

  @Test("a strict mode that names a registration forbids it, though the container published it")
  func strict() throws {
    let container = Self.container()
    _ = try container.resolve() as Poller
    let elsewhere = ScopedReadContainer()
    withIsolatedContainers(elsewhere, strict: .dependencies(["ForgeTestingTests.Poller"])) {
      #expect(throws: StrictModeViolation.self) { _ = try container.resolve() as Poller }
    }
  }
}
