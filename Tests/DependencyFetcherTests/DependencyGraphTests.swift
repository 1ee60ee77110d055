import DependencyFetcher
import Testing

/// A small fixed graph: a repository over a logger and an endpoint.
enum GraphServices {
  final class Logger: Sendable {}
  final class Endpoint: Sendable {}
  final class Repository: Sendable {
    let logger: Logger
    let endpoint: Endpoint
    init(logger: Logger, endpoint: Endpoint) {
      self.logger = logger
      self.endpoint = endpoint
    }
  }
}

extension Service where T == GraphServices.Logger {
  static let graphLogger = Service("logger") { GraphServices.Logger() }
}
extension Service where T == GraphServices.Endpoint {
  static let graphEndpoint = Service("endpoint") { GraphServices.Endpoint() }
}
extension Service where T == GraphServices.Repository {
  static let graphRepository = Service("repository") { fetcher in
    GraphServices.Repository(logger: fetcher.fetch(.graphLogger), endpoint: fetcher.fetch(.graphEndpoint))
  }
}

@Suite("DependencyFetcher: the dependency graph")
struct DependencyGraphTests {
  func resolvedGraph() -> DependencyGraph {
    let fetcher = Fetcher.createDefault()
    _ = fetcher.fetch(.graphRepository)
    return fetcher.dependencyGraph()
  }

  @Test("Mermaid: a shape per lifetime, an arrow per edge")
  func mermaid() {
    #expect(
      resolvedGraph().mermaid == """
        flowchart TD
          n1(["repository: DependencyFetcherTests.GraphServices.Repository<br/>singleton"])
          n2(["logger: DependencyFetcherTests.GraphServices.Logger<br/>singleton"])
          n3(["endpoint: DependencyFetcherTests.GraphServices.Endpoint<br/>singleton"])
          n1 --> n2
          n1 --> n3

        """)
  }

  @Test("DOT: a shape and style per lifetime, an arrow per edge")
  func dot() {
    #expect(
      resolvedGraph().dot == """
        digraph dependencies {
          node [fontname="Helvetica"];
          n1 [label="repository\\nDependencyFetcherTests.GraphServices.Repository\\nsingleton", shape=box, style="rounded,bold"];
          n2 [label="logger\\nDependencyFetcherTests.GraphServices.Logger\\nsingleton", shape=box, style="rounded,bold"];
          n3 [label="endpoint\\nDependencyFetcherTests.GraphServices.Endpoint\\nsingleton", shape=box, style="rounded,bold"];
          n1 -> n2;
          n1 -> n3;
        }

        """)
  }

  @Test("JSON: nodes and edges, keys in a fixed order")
  func json() {
    #expect(
      resolvedGraph().json == """
        {
          "nodes": [
            {"id": "n1", "name": "repository", "type": "DependencyFetcherTests.GraphServices.Repository", "lifetime": "singleton", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n2", "name": "logger", "type": "DependencyFetcherTests.GraphServices.Logger", "lifetime": "singleton", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n3", "name": "endpoint", "type": "DependencyFetcherTests.GraphServices.Endpoint", "lifetime": "singleton", "overridden": false, "preview": false, "status": "ok"}
          ],
          "edges": [
            {"from": "n1", "to": "n2"},
            {"from": "n1", "to": "n3"}
          ]
        }

        """)
  }

  @Test("an overridden service is marked; who depends on it is asked by name")
  func overriddenAndQueries() {
    let fetcher = Fetcher.create().addOverride(for: .graphLogger, instance: GraphServices.Logger()).done()
    _ = fetcher.fetch(.graphRepository)
    let graph = fetcher.dependencyGraph()
    #expect(graph.node(named: "logger")?.isOverridden == true)
    #expect(graph.nodes.filter(\.isOverridden).count == 1)
    #expect(graph.dependents(of: "endpoint").map(\.name) == ["repository"])
  }
}
