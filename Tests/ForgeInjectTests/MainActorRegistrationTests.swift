import ForgeInject
import ForgeTestSupport
import Testing

/// A view model whose initialiser runs on the main actor.
@MainActor final class MainScreen: Sendable {
  let title: String
  init(_ title: String) {
    MainActor.preconditionIsolated()
    self.title = title
  }
}

/// Resolves itself while it is built.
@MainActor final class MainLoop: Sendable {
  init(_ loop: MainLoop?) {}
}

struct ScreenTitle: Sendable { let text: String }

@Suite("ForgeInject: main-actor builders that build on first resolution", .timeLimit(.minutes(1)))
struct MainActorRegistrationTests {
  private func container(
    _ builds: Counter, policy: ForgeRetainPolicy = .singleton, failing: Set<Int> = []
  ) -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in ScreenTitle(text: "Screen") }
    container.register(
      with: policy,
      onMainActor: { c in
        let build = builds.incremented()
        if failing.contains(build) { throw AsyncFactory.Failed() }
        let title: ScreenTitle = try c.resolve()
        return MainScreen(title.text)
      })
    return container
  }

  @Test("nothing is built at registration; on the main actor resolve() is synchronous, elsewhere awaited, built once")
  func resolvesEverywhere() async throws {
    let builds = Counter()
    let container = container(builds)
    #expect(builds.count == 0)
    let fromTasks = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<32 {
        group.addTask { ObjectIdentifier(try await container.resolveAsync() as MainScreen) }
      }
      return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    let onMain = try await MainActor.run { ObjectIdentifier(try container.resolve() as MainScreen) }
    #expect(fromTasks == [onMain])
    #expect(builds.count == 1)
  }

  @Test("a type with a synchronous registration beside its main-actor one resolves the synchronous one")
  @MainActor func synchronousRegistrationWins() async throws {
    let container = container(Counter())
    let kept: MainScreen = try await container.resolveAsync()
    // Published for the main actor now; the synchronous registration,
    // made after, is still the one a synchronous resolve() builds from.
    container.register(with: .singleton) { _ in MainActor.assumeIsolated { MainScreen("synchronous") } }
    let resolved: MainScreen = try container.resolve()
    #expect(resolved.title == "synchronous")
    #expect(resolved !== kept)
  }

  @Test("a synchronous resolve() off the main actor throws, naming the type, the actor and the fix")
  func offTheMainActor() async throws {
    let container = container(Counter())
    let error = await Task.detached {
      #expect(throws: ForgeContainerError.self) { try container.resolve() as MainScreen }
    }.value
    let text = error?.errorDescription ?? ""
    #expect(text.hasPrefix("Missing factory method for instance: ForgeInjectTests.MainScreen (built on the main actor"))
    #expect(text.contains("try await container.resolveAsync()"))
  }

  @Test("once built and kept, the instance is still not handed out synchronously off the main actor")
  func offTheMainActorOnceBuilt() async throws {
    let builds = Counter()
    let container = container(builds)
    let onMain = try await MainActor.run { ObjectIdentifier(try container.resolve() as MainScreen) }
    // A second read on the main actor is the hit, the same instance.
    #expect(try await MainActor.run { ObjectIdentifier(try container.resolve() as MainScreen) } == onMain)
    let fromTask = await Task.detached { (try? container.resolve() as MainScreen).map(ObjectIdentifier.init) }.value
    #expect(fromTask == nil)
    let fromThreads = Guarded<[Bool]>([])
    onThreads(2) { _ in
      let threw = (try? container.resolve() as MainScreen) == nil
      fromThreads.withLock { $0.append(threw) }
    }
    #expect(fromThreads.withLock { $0 } == [true, true])
    #expect(builds.count == 1)
  }

  @Test("a builder that throws keeps nothing; the next resolution builds again")
  @MainActor
  func failureRetries() throws {
    let builds = Counter()
    let container = container(builds, failing: [1])
    #expect(throws: AsyncFactory.Failed.self) { try container.resolve() as MainScreen }
    let screen: MainScreen = try container.resolve()
    #expect(screen.title == "Screen")
    #expect(builds.count == 2)
  }

  @Test(".weak keeps the instance while it is held, and builds another once it is released")
  @MainActor
  func weakReleases() throws {
    let builds = Counter()
    let container = container(builds, policy: .weak)
    var held: MainScreen? = try container.resolve()
    weak let watched = held
    #expect(try container.resolve() as MainScreen === held)
    held = nil
    #expect(watched == nil)
    _ = try container.resolve() as MainScreen
    #expect(builds.count == 2)
  }

  @Test("a builder that resolves its own type throws DependencyCycleError with the path")
  @MainActor
  func cycle() {
    let container = ForgeContainer()
    container.register(with: .singleton, onMainActor: { c in MainLoop(try c.resolve() as MainLoop) })
    let error = #expect(throws: DependencyCycleError.self) { try container.resolve() as MainLoop }
    #expect(error?.path == ["ForgeInjectTests.MainLoop", "ForgeInjectTests.MainLoop"])
  }

  @Test("the graph has what the builder resolved")
  @MainActor
  func graph() throws {
    let container = container(Counter())
    _ = try container.resolve() as MainScreen
    let graph = container.dependencyGraph()
    #expect(
      graph.dependencies(of: "ForgeInjectTests.MainScreen", transitively: false).map(\.name) == [
        "ForgeInjectTests.ScreenTitle"
      ])
  }
}
