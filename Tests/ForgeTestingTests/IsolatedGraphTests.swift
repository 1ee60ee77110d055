import DependencyFetcher
import Forge
import ForgeInject
import ForgeTestSupport
import ForgeTesting
import SwiftPod
import Testing

/// A singleton built from one of two others, as a flag says.
final class PickingContainer: Container, @unchecked Sendable {
  var useFirst: Bool { provide(.singleton) { false } }
  var first: Int { provide(.singleton) { 1 } }
  var second: Int { provide(.singleton) { 2 } }
  var picked: ScopedReadProbe { provide(.singleton) { ScopedReadProbe(self.useFirst ? self.first : self.second) } }
}

/// ``PickingContainer``'s singleton, whose build from `first` (a test's,
/// which overrides `useFirst`) waits at `held` until `release` is raised.
final class HeldPickingContainer: Container, @unchecked Sendable {
  let held = Signal()
  let release = Signal()
  var useFirst: Bool { provide(.singleton) { false } }
  var first: Int { provide(.singleton) { 1 } }
  var second: Int { provide(.singleton) { 2 } }
  var picked: ScopedReadProbe {
    provide(.singleton) {
      guard self.useFirst else { return ScopedReadProbe(self.second) }
      let first = self.first
      self.held.raise()
      self.release.wait()
      return ScopedReadProbe(first)
    }
  }
}

/// A main-actor dependency built from a synchronous one.
final class IsolatedGraphContainer: Container, @unchecked Sendable {
  var title: String { provide(.singleton) { "Settings" } }
  var screen: MainActorDependency<ScreenModel> { provide(.singleton) { @MainActor in ScreenModel(self.title) } }
}

@MainActor final class ScreenModel {
  let title: String
  init(_ title: String) { self.title = title }
}

/// A graph exported inside an isolated test shows the edges of what the
/// test built first, in every dialect: the test's build is the slot's own
/// factory's.
@Suite("ForgeTesting: the graph of an isolated test", .timeLimit(.minutes(1)))
struct IsolatedGraphTests {
  @Test("Forge: a singleton the test built first has its edges in the test's graph")
  func forge() {
    let container = ScopedReadContainer()
    let inTest = withIsolatedContainers(container) {
      _ = container.dependent
      return container.dependencyGraph()
    }
    #expect(
      inTest.dependencies(of: "ScopedReadContainer.dependent").map(\.name) == ["ScopedReadContainer.value"])
    // The edges are the factory's: the container's graph has them too.
    #expect(
      container.dependencyGraph().dependents(of: "ScopedReadContainer.value").map(\.name) == [
        "ScopedReadContainer.dependent"
      ])
  }

  @Test("ForgeInject: a singleton the test built first has its edges in the test's graph")
  func forgeInject() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in GraphNodes.Leaf() }
    container.register(with: .singleton) { c in GraphNodes.Root(leaf: try c.resolve()) }
    let graph = try withIsolatedContainers(container) {
      let _: GraphNodes.Root = try container.resolve()
      return container.dependencyGraph()
    }
    #expect(
      graph.dependencies(of: "ForgeTestingTests.GraphNodes.Root").map(\.name) == [
        "ForgeTestingTests.GraphNodes.Leaf"
      ])
  }

  @Test("SwiftPod: a provider the test resolved first has its edges in the test's graph")
  func swiftPod() {
    let pod = SwiftPod()
    let leaf = Provider("leaf") { _ in GraphNodes.Leaf() }
    let root = Provider("root") { pod in GraphNodes.Root(leaf: pod.resolve(leaf)) }
    let graph = withIsolatedContainers(pod) {
      _ = pod.resolve(root)
      return pod.dependencyGraph()
    }
    #expect(graph.dependencies(of: "root").map(\.name) == ["leaf"])
  }

  @Test("DependencyFetcher: a service the test fetched first has its edges in the test's graph")
  func fetcher() {
    let fetcher = Fetcher.createDefault()
    let graph = withIsolatedContainers(fetcher) {
      _ = fetcher.fetch(.isolatedGraphRoot)
      return fetcher.dependencyGraph()
    }
    #expect(graph.dependencies(of: "isolatedGraphRoot").map(\.name) == ["isolatedGraphLeaf"])
  }

  @Test("an async dependency the test built first has its edges in the test's graph")
  func asyncDependency() async throws {
    let container = ScopedReadContainer()
    let (read, inTest) = try await withIsolatedContainers(container) { () async throws in
      (try await container.reader.value, container.dependencyGraph())
    }
    #expect(read == "read 7")
    #expect(inTest.dependencies(of: "ScopedReadContainer.reader").map(\.name) == ["ScopedReadContainer.unrelated"])
    // For graphs only: the slot's record, which decides which handle a
    // scope reads, is the container's build's (a scope that reads the
    // handle twice gets one instance: `AsyncDependencyTests`).
    #expect(try await container.reader.value == "read 7")
    #expect(
      container.dependencyGraph().dependencies(of: "ScopedReadContainer.reader").map(\.name) == [
        "ScopedReadContainer.unrelated"
      ])
  }

  @Test("a main-actor dependency the test built first has its edges in the test's graph")
  @MainActor
  func mainActorDependency() {
    let container = IsolatedGraphContainer()
    let graph = withIsolatedContainers(container) {
      #expect(container.screen.value.title == "Settings")
      return container.dependencyGraph()
    }
    #expect(graph.dependencies(of: "IsolatedGraphContainer.screen").map(\.name) == ["IsolatedGraphContainer.title"])
  }

  @Test("a test's build never replaces the edges of the container's instance, which decide what a scope rebuilds")
  func containerEdgesStay() {
    let container = PickingContainer()
    #expect(container.picked.value == 2)  // built from `useFirst` and `second`
    withIsolatedContainers(container) {
      container.override(\.useFirst) { true }
      // The test's own build reads `first`.
      #expect(container.picked.value == 1)
    }
    let graph = container.dependencyGraph()
    #expect(
      graph.dependencies(of: "PickingContainer.picked").map(\.name).sorted() == [
        "PickingContainer.second", "PickingContainer.useFirst",
      ])
    // So a scope that overrides `second` sees that the container's instance
    // was built from it, and builds its own.
    let inScope = container.withOverrides {
      $0.override(\.second) { 20 }
    } run: {
      container.picked.value
    }
    #expect(inScope == 20)
    #expect(container.picked.value == 2)
  }

  @Test(
    "a test's build that began before the container's first build and ends after it keeps none of its edges",
    .timeLimit(.minutes(1)))
  func containerEdgesWinARace() {
    let container = HeldPickingContainer()
    // The test's build begins with nothing recorded, so it may record; it
    // is held until the container's own build has recorded.
    let test = RealThread {
      withIsolatedContainers(container) {
        container.override(\.useFirst) { true }
        #expect(container.picked.value == 1)
      }
    }
    #expect(container.held.wait())
    #expect(container.picked.value == 2)  // the container's build, meanwhile
    container.release.raise()
    test.join()
    #expect(
      container.dependencyGraph().dependencies(of: "HeldPickingContainer.picked").map(\.name).sorted() == [
        "HeldPickingContainer.second", "HeldPickingContainer.useFirst",
      ])
    // So a scope that overrides `second` rebuilds the container's instance.
    let inScope = container.withOverrides {
      $0.override(\.second) { 20 }
    } run: {
      container.picked.value
    }
    #expect(inScope == 20)
  }
}

/// Two classes, one built from the other.
enum GraphNodes {
  final class Leaf: Sendable {}
  final class Root: Sendable {
    let leaf: Leaf
    init(leaf: Leaf) { self.leaf = leaf }
  }
}

extension Service where T == GraphNodes.Leaf {
  static let isolatedGraphLeaf = Service("isolatedGraphLeaf") { GraphNodes.Leaf() }
}
extension Service where T == GraphNodes.Root {
  static let isolatedGraphRoot = Service("isolatedGraphRoot") { fetcher in
    GraphNodes.Root(leaf: fetcher.fetch(.isolatedGraphLeaf))
  }
}
