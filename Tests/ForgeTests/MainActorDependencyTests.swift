import Forge
import ForgeTestSupport
import Testing

/// A view model whose initialiser runs on the main actor.
@MainActor final class SettingsModel {
  let title: String
  init(_ title: String) {
    MainActor.preconditionIsolated()
    self.title = title
  }
}

final class MainActorContainer: Container, @unchecked Sendable {
  let builds = Counter()
  var title: String { provide { "Settings" } }
  var settings: MainActorDependency<SettingsModel> {
    provide(.singleton) { @MainActor in
      self.builds.increment()
      return SettingsModel(self.title)
    }
  }
  var fresh: MainActorDependency<SettingsModel> { provide { @MainActor in SettingsModel("fresh") } }
  var loop: MainActorDependency<Int> { provide(.singleton) { @MainActor in self.loop.value + 1 } }
  var unrelated: String { provide { "unrelated" } }
  let log = Guarded<[String]>([])
  var motor: StoppablePart { provide(.singleton) { StoppablePart("motor", log: self.log) } }
  var screen: MainActorDependency<MainActorStoppable> {
    provide(.singleton) { @MainActor in MainActorStoppable(StoppablePart("screen", log: self.log, [self.motor])) }
  }
}

/// A cached main-actor dependency whose second build reads what its first
/// did not.
final class ChangingMainReadsContainer: Container, @unchecked Sendable {
  let builds = Counter()
  var flag: String { provide { "real" } }
  var probe: MainActorDependency<String> {
    provide(.cached) { @MainActor in self.builds.incremented() == 1 ? "first" : self.flag }
  }
}

@Suite("Forge: main-actor dependencies", .timeLimit(.minutes(1)))
struct MainActorDependencyTests {
  @Test("on the main actor the read is synchronous; elsewhere it is awaited, and built once")
  func readsEverywhere() async {
    let container = MainActorContainer()
    let fromTasks = await withTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<32 {
        group.addTask { await ObjectIdentifier(container.settings.value) }
      }
      return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    let onMain = await MainActor.run { ObjectIdentifier(container.settings.value) }
    #expect(fromTasks == [onMain])
    #expect(container.builds.count == 1)
    #expect(await container.settings.value.title == "Settings")
  }

  @Test("a transient one is built on every read; an override replaces it")
  @MainActor
  func transientAndOverride() {
    let container = MainActorContainer()
    #expect(container.fresh.value !== container.fresh.value)
    container.override(\.settings) { @MainActor in SettingsModel("mock") }
    #expect(container.settings.value.title == "mock")
    container.removeOverride(for: \.settings)
    #expect(container.settings.value.title == "Settings")
  }

  @Test("a container is released after its main-actor dependency was built")
  @MainActor
  func containerReleased() {
    weak var released: MainActorContainer?
    do {
      let container = MainActorContainer()
      released = container
      _ = container.settings.value
    }
    #expect(released == nil)
  }

  @Test("a main-actor factory that reads itself stops with the cycle's path")
  func cycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = MainActorContainer()
      _ = await container.loop.value
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("[Forge.cycle] Dependency cycle: MainActorContainer.loop → MainActorContainer.loop"))
    // At the property's declaration, in Forge's words.
    #expect(
      stderr.contains("ForgeTests/MainActorDependencyTests.swift:24: Fatal error: Forge: [Forge.cycle]"), "\(stderr)")
  }

  @Test("shutdown() stops a main-actor instance before what its factory resolved")
  func shutdown() async {
    let container = MainActorContainer()
    _ = await container.screen.value
    let report = await container.shutdown()
    #expect(report.stopped == ["MainActorContainer.screen", "MainActorContainer.motor"])
    #expect(container.log.withLock { $0 } == ["screen", "motor"])
  }

  @Test("the graph has what a main-actor factory resolved; observers hear its build")
  @MainActor
  func graphAndTracing() {
    let container = MainActorContainer()
    let log = EventLog()
    container.addObserver(log)
    _ = container.settings.value
    #expect(
      container.dependencyGraph().dependencies(of: "MainActorContainer.settings", transitively: false).map(\.name)
        == ["MainActorContainer.title"])
    #expect(
      log.lines == [
        "requested MainActorContainer.settings", "cacheHit MainActorContainer.settings",
        "requested MainActorContainer.settings",
        "requested MainActorContainer.title ← MainActorContainer.settings",
        "built MainActorContainer.title ← MainActorContainer.settings",
        "built MainActorContainer.settings",
      ])
  }

  @Test("an override scope rebuilds a main-actor dependency only when its overrides reach it")
  @MainActor
  func scopeReach() {
    let container = MainActorContainer()
    let first = container.settings.value
    let unrelated = container.withOverrides {
      $0.override(\.unrelated) { "other" }
    } run: {
      container.settings.value
    }
    #expect(unrelated === first)
    #expect(container.builds.count == 1)
    let reached = container.withOverrides {
      $0.override(\.title) { "Mock" }
    } run: {
      container.settings.value
    }
    #expect(reached.title == "Mock")
    #expect(container.builds.count == 2)
    #expect(container.settings.value === first)
  }

  @Test("the container's build, started from a scope its last build did not reach, does not see that scope")
  @MainActor
  func containerBuildOutsideScope() {
    let container = ChangingMainReadsContainer()
    #expect(container.probe.value == "first")  // read nothing
    container.resetCached()
    let inScope = container.withOverrides {
      $0.override(\.flag) { "mock" }
    } run: {
      container.probe.value
    }
    #expect(inScope == "real")
    #expect(container.probe.value == "real")
    #expect(container.builds.count == 2)
  }

  @Test("a container-wide main-actor override read in a scope sees the scope's overrides, as a synchronous one does")
  @MainActor
  func overrideReadsScope() {
    let container = MainActorContainer()
    // Unowned: an override is kept by the container it reads.
    container.override(\.settings) { @MainActor [unowned container] in
      SettingsModel("override over \(container.title)")
    }
    container.override(\.unrelated) { [unowned container] in "override over \(container.title)" }
    let (screen, plain) = container.withOverrides {
      $0.override(\.title) { "Mock" }
    } run: {
      (container.settings.value.title, container.unrelated)
    }
    #expect(plain == "override over Mock")
    #expect(screen == "override over Mock")
    #expect(container.settings.value.title == "override over Settings")
  }
}
