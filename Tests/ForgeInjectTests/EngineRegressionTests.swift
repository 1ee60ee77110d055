import ForgeInject
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

protocol Observing: AnyObject, Sendable {}
@MainActor final class MainObserver: Observing {}

protocol LeftService: Sendable {}
protocol RightService: Sendable {}
final class Left: LeftService {}
final class Right: RightService {}

/// `@Inject` storage read by one thread while another resolves what it needs.
final class InjectOwner: Sendable {
  @Inject var right: RightService
}

let injectBarrier = Barrier(2)
let injectOwner = InjectOwner()

@Suite("ForgeInject: the engine's regressions", .timeLimit(.minutes(1)))
struct ForgeInjectEngineRegressionTests {
  @Test("two threads closing a cycle across two containers both get DependencyCycleError")
  func crossContainerCycle() {
    let first = ForgeContainer()
    let second = ForgeContainer()
    let barrier = Barrier(2)
    // Unowned: each container's builder reaching the other strongly would
    // keep both alive forever (LeakSanitizer says so).
    first.register(with: .singleton) { [unowned second] _ in
      barrier.arrive()
      let _: RightService = try second.resolve()
      return Left() as LeftService
    }
    second.register(with: .singleton) { [unowned first] _ in
      barrier.arrive()
      let _: LeftService = try first.resolve()
      return Right() as RightService
    }
    let cycles = Counter()
    let threads = [
      RealThread {
        do { let _: LeftService = try first.resolve() } catch is DependencyCycleError { cycles.increment() } catch {}
      },
      RealThread {
        do { let _: RightService = try second.resolve() } catch is DependencyCycleError { cycles.increment() } catch {}
      },
    ]
    for thread in threads { thread.join() }
    #expect(cycles.count == 2)
  }

  @Test("@Inject read by a build while another thread resolves it through that build stops with the cycle, at once")
  func injectCycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = ForgeContainer()
      container.register(with: .singleton) { _ in
        injectBarrier.arrive()
        _ = injectOwner.right  // the other thread is resolving it
        return Left() as LeftService
      }
      container.register(with: .singleton) { resolver in
        injectBarrier.arrive()
        let _: LeftService = try resolver.resolve()
        return Right() as RightService
      }
      ForgeContainer.shared = container
      _ = RealThread { _ = try? container.resolve() as LeftService }
      _ = RealThread { _ = injectOwner.right }
      exitIfStillRunning(after: 20)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    // Which thread reports it depends on the interleaving: the reading
    // thread ("Reading InjectOwner.right closes …") or the resolving one
    // ("InjectOwner.right needs …, but resolving it closes …").
    #expect(stderr.contains("ForgeInject: [Forge.cycle] "))
    #expect(stderr.contains("closes a dependency cycle: "))
    #expect(stderr.contains("InjectOwner.right → ForgeInjectTests.RightService → ForgeInjectTests.LeftService"))
    #expect(!beforeBacktrace(stderr).contains("hang"))
  }

  @Test("reset(preserving: []) while a singleton is being built: the old state's instance is not kept")
  func resetDuringBuild() throws {
    let container = ForgeContainer()
    let started = Signal()
    let proceed = Signal()
    let version = LockedValue("old")
    container.register(with: .singleton) { _ in
      let label = version.current
      if label == "old" {
        started.raise()
        proceed.wait()
      }
      return Widget(label)
    }
    let builder = RealThread { let _: Widget = try! container.resolve() }
    started.wait()
    version.current = "new"
    container.reset(preserving: [])
    proceed.raise()
    builder.join()
    let widget: Widget = try container.resolve()
    #expect(widget.label == "new")
  }

  @Test("an instance built eagerly by mainActorBuilder is in resolveAll at once")
  @MainActor
  func eagerMainActorInstance() throws {
    let container = ForgeContainer()
    container.register(with: .singleton, mainActorBuilder: { _ in MainObserver() as Observing })
    #expect(container.resolveAll(conforming: Observing.self).count == 1)
    let resolved: Observing = try container.resolve()
    #expect(resolved === container.resolveAll(conforming: Observing.self).first)
  }
}
