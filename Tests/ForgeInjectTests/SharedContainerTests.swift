import ForgeInject
import Testing

@Suite("ForgeContainer.shared")
struct SharedContainerTests {
  @Test("withShared applies to the current task only")
  func taskScoped() async {
    let outside = ForgeContainer.shared
    let mine = ForgeContainer()
    await ForgeContainer.withShared(mine) {
      #expect(ForgeContainer.shared as AnyObject === mine)
      await Task.yield()
      #expect(ForgeContainer.shared as AnyObject === mine)
    }
    #expect(ForgeContainer.shared as AnyObject? === outside as AnyObject?)
  }

  @Test("a lazy @Inject created inside withShared resolves from that container, read after it returned (issue 11)")
  func lazyInjectKeepsItsContainer() {
    let mine = ForgeContainer()
    mine.register(with: .singleton) { _ in AnalyticsService() as AnalyticsServiceProtocol }
    mine.register(with: .singleton) { _ in NetworkService(id: 7) as NetworkServiceProtocol }
    mine.register { _ in Widget("mine") }
    let coordinator = ForgeContainer.withShared(mine) { Coordinator() }
    let other = ForgeContainer()
    other.register(with: .singleton) { _ in NetworkService(id: 99) as NetworkServiceProtocol }
    // Read later, under another container: still the one it was created in.
    ForgeContainer.withShared(other) {
      #expect(coordinator.analytics is AnalyticsService)
      #expect(coordinator.network.id == 7)
    }
  }

  @Test("set once at launch; nil may be set and set again")
  func setOnce() async {
    await #expect(processExitsWith: .success) {
      ForgeContainer.shared = ForgeContainer()
      ForgeContainer.shared = nil
      ForgeContainer.shared = ForgeContainer()
    }
  }

  @Test("setting it over another container stops with a message naming the fix")
  func setTwice() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ForgeContainer.shared = ForgeContainer()
      ForgeContainer.shared = ForgeContainer()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("ForgeContainer.shared is already set"))
    #expect(stderr.contains("ForgeContainer.withShared(container)"))
  }
}

@Suite("Macro failure messages")
struct MacroFailureTests {
  @Test("@Injectable with a missing registration names the owner, the property and the type")
  func injectableMissing() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = ForgeContainer()
      container.register(with: .transient) { _ in Widget() }
      ForgeContainer.shared = container
      _ = InjectedViewModel()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("MacroTests.swift"))
    #expect(
      stderr.contains(
        "InjectedViewModel.networkService needs ForgeInjectTests.NetworkServiceProtocol, but resolving it failed: Missing factory method for instance: ForgeInjectTests.NetworkServiceProtocol."
      ))
    #expect(stderr.contains("Registered types: ForgeInjectTests.Widget."))
  }

  @Test("@Inject without a shared container says how to set one")
  func injectWithoutShared() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Coordinator(widget: Widget())
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "Coordinator.network needs ForgeInjectTests.NetworkServiceProtocol, but ForgeContainer.shared is nil"))
  }

  @Test("#inject() failures name the expression and its type")
  func expressionMissing() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ForgeContainer.shared = ForgeContainer()
      _ = ExpressionUser()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("#inject() in ExpressionUser needs ForgeInjectTests.NetworkServiceProtocol"))
  }
}
