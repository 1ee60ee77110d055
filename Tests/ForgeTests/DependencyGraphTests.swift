import Forge
import Testing

/// A small fixed graph: a transient view model over a cached API over a
/// singleton network, and a singleton clock.
final class GraphContainer: Container, @unchecked Sendable {
  final class Network: Sendable {}
  final class API: Sendable {
    let network: Network
    init(network: Network) { self.network = network }
  }
  final class Clock: Sendable {}
  final class ViewModel: Sendable {
    let api: API
    let clock: Clock
    init(api: API, clock: Clock) {
      self.api = api
      self.clock = clock
    }
  }

  var network: Network { provide(.singleton) { Network() } }
  var api: API { provide(.cached) { API(network: self.network) } }
  var clock: Clock { provide(.singleton) { Clock() } }
  var viewModel: ViewModel { provide { ViewModel(api: self.api, clock: self.clock) } }
}

@Suite("Forge: the dependency graph")
struct DependencyGraphTests {
  /// The fixture after resolving the view model once.
  func resolvedGraph() -> DependencyGraph {
    let container = GraphContainer()
    _ = container.viewModel
    return container.dependencyGraph()
  }

  @Test("nodes in resolution order, with type, lifetime and the edges of each build")
  func nodesAndEdges() {
    let graph = resolvedGraph()
    #expect(
      graph.nodes == [
        .init(
          id: "n1", name: "GraphContainer.viewModel", type: "ForgeTests.GraphContainer.ViewModel",
          lifetime: "transient", isOverridden: false),
        .init(
          id: "n2", name: "GraphContainer.api", type: "ForgeTests.GraphContainer.API", lifetime: "cached",
          isOverridden: false),
        .init(
          id: "n3", name: "GraphContainer.network", type: "ForgeTests.GraphContainer.Network",
          lifetime: "singleton", isOverridden: false),
        .init(
          id: "n4", name: "GraphContainer.clock", type: "ForgeTests.GraphContainer.Clock",
          lifetime: "singleton", isOverridden: false),
      ])
    #expect(graph.edges == [.init(from: "n1", to: "n2"), .init(from: "n1", to: "n4"), .init(from: "n2", to: "n3")])
  }

  @Test("Mermaid: a shape per lifetime, an arrow per edge")
  func mermaid() {
    #expect(
      resolvedGraph().mermaid == """
        flowchart TD
          n1["GraphContainer.viewModel: ForgeTests.GraphContainer.ViewModel<br/>transient"]
          n2("GraphContainer.api: ForgeTests.GraphContainer.API<br/>cached")
          n3(["GraphContainer.network: ForgeTests.GraphContainer.Network<br/>singleton"])
          n4(["GraphContainer.clock: ForgeTests.GraphContainer.Clock<br/>singleton"])
          n1 --> n2
          n1 --> n4
          n2 --> n3

        """)
  }

  @Test("DOT: a shape and style per lifetime, an arrow per edge")
  func dot() {
    #expect(
      resolvedGraph().dot == """
        digraph dependencies {
          node [fontname="Helvetica"];
          n1 [label="GraphContainer.viewModel\\nForgeTests.GraphContainer.ViewModel\\ntransient", shape=box];
          n2 [label="GraphContainer.api\\nForgeTests.GraphContainer.API\\ncached", shape=box, style=rounded];
          n3 [label="GraphContainer.network\\nForgeTests.GraphContainer.Network\\nsingleton", shape=box, style="rounded,bold"];
          n4 [label="GraphContainer.clock\\nForgeTests.GraphContainer.Clock\\nsingleton", shape=box, style="rounded,bold"];
          n1 -> n2;
          n1 -> n4;
          n2 -> n3;
        }

        """)
  }

  @Test("JSON: nodes and edges, keys in a fixed order")
  func json() {
    #expect(
      resolvedGraph().json == """
        {
          "nodes": [
            {"id": "n1", "name": "GraphContainer.viewModel", "type": "ForgeTests.GraphContainer.ViewModel", "lifetime": "transient", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n2", "name": "GraphContainer.api", "type": "ForgeTests.GraphContainer.API", "lifetime": "cached", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n3", "name": "GraphContainer.network", "type": "ForgeTests.GraphContainer.Network", "lifetime": "singleton", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n4", "name": "GraphContainer.clock", "type": "ForgeTests.GraphContainer.Clock", "lifetime": "singleton", "overridden": false, "preview": false, "status": "ok"}
          ],
          "edges": [
            {"from": "n1", "to": "n2"},
            {"from": "n1", "to": "n4"},
            {"from": "n2", "to": "n3"}
          ]
        }

        """)
  }

  @Test("who depends on a dependency, and what it depends on, directly or transitively")
  func queries() {
    let graph = resolvedGraph()
    #expect(
      graph.dependents(of: "GraphContainer.network").map(\.name) == ["GraphContainer.api", "GraphContainer.viewModel"])
    #expect(graph.dependents(of: "GraphContainer.network", transitively: false).map(\.name) == ["GraphContainer.api"])
    #expect(
      graph.dependencies(of: "GraphContainer.viewModel").map(\.name) == [
        "GraphContainer.api", "GraphContainer.clock", "GraphContainer.network",
      ])
    #expect(
      graph.dependencies(of: "GraphContainer.viewModel", transitively: false).map(\.name) == [
        "GraphContainer.api", "GraphContainer.clock",
      ])
    #expect(graph.dependents(of: "GraphContainer.viewModel").isEmpty)
    #expect(graph.dependencies(of: "GraphContainer.missing").isEmpty)
  }

  @Test("overridden nodes are marked, container-wide and inside withOverrides, and drawn dashed")
  func overriddenNodes() {
    let container = GraphContainer()
    _ = container.viewModel
    container.override(\.clock) { GraphContainer.Clock() }
    let overridden = container.dependencyGraph()
    #expect(overridden.nodes.filter(\.isOverridden).map(\.name) == ["GraphContainer.clock"])
    #expect(overridden.mermaid.contains("  classDef overridden stroke-dasharray: 5 5\n  class n4 overridden\n"))
    #expect(
      overridden.dot.contains(
        #"n4 [label="GraphContainer.clock\nForgeTests.GraphContainer.Clock\nsingleton, overridden", shape=box, style="rounded,bold,dashed"];"#
      ))
    #expect(
      overridden.json.contains(#""lifetime": "singleton", "overridden": true, "preview": false, "status": "ok"}"#))
    container.removeOverride(for: \.clock)

    let scoped = container.withOverrides {
      $0.override(\.network) { GraphContainer.Network() }
    } run: {
      container.dependencyGraph()
    }
    #expect(scoped.nodes.filter(\.isOverridden).map(\.name) == ["GraphContainer.network"])
    #expect(container.dependencyGraph().nodes.filter(\.isOverridden).isEmpty)
  }

  @Test("making the graph builds nothing and keeps nothing")
  func graphIsReadOnly() {
    let container = GraphContainer()
    let empty = container.dependencyGraph()
    #expect(empty.nodes.isEmpty && empty.edges.isEmpty)
    let network = container.network
    _ = container.dependencyGraph()
    #expect(container.network === network)
    #expect(container.dependencyGraph().nodes.map(\.name) == ["GraphContainer.network"])
  }

  @Test("a dependency its preview factory served is marked as such")
  func previewNodes() {
    let container = TestContainer()
    Forge.withPreviewMode { _ = container.previewed }
    let graph = container.dependencyGraph()
    #expect(graph.node(named: "TestContainer.previewed")?.isPreview == true)
    #expect(graph.json.contains(#""overridden": false, "preview": true, "status": "ok""#))
    #expect(graph.mermaid.contains("no own build, preview"))
  }
}
