import ForgeInject
import Testing

/// A small fixed graph: a transient user service over a singleton client
/// and a weak cache.
enum GraphTypes {
  final class Client: Sendable {}
  final class Cache: Sendable {}
  final class UserService: Sendable {
    let client: Client
    let cache: Cache
    init(client: Client, cache: Cache) {
      self.client = client
      self.cache = cache
    }
  }

  static func container() -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Client() }
    container.register(with: .weak) { _ in Cache() }
    container.register { c in UserService(client: try c.resolve(), cache: try c.resolve()) }
    return container
  }
}

@Suite("ForgeInject: the dependency graph")
struct DependencyGraphTests {
  func resolvedGraph() throws -> DependencyGraph {
    let container = GraphTypes.container()
    let service: GraphTypes.UserService = try container.resolve()
    return withExtendedLifetime(service) { container.dependencyGraph() }
  }

  @Test("Mermaid: a shape per lifetime, an arrow per edge")
  func mermaid() throws {
    #expect(
      try resolvedGraph().mermaid == """
        flowchart TD
          n1["ForgeInjectTests.GraphTypes.UserService<br/>transient"]
          n2(["ForgeInjectTests.GraphTypes.Client<br/>singleton"])
          n3{{"ForgeInjectTests.GraphTypes.Cache<br/>weak"}}
          n1 --> n2
          n1 --> n3

        """)
  }

  @Test("DOT: a shape and style per lifetime, an arrow per edge")
  func dot() throws {
    #expect(
      try resolvedGraph().dot == """
        digraph dependencies {
          node [fontname="Helvetica"];
          n1 [label="ForgeInjectTests.GraphTypes.UserService\\ntransient", shape=box];
          n2 [label="ForgeInjectTests.GraphTypes.Client\\nsingleton", shape=box, style="rounded,bold"];
          n3 [label="ForgeInjectTests.GraphTypes.Cache\\nweak", shape=hexagon];
          n1 -> n2;
          n1 -> n3;
        }

        """)
  }

  @Test("JSON: nodes and edges, keys in a fixed order")
  func json() throws {
    #expect(
      try resolvedGraph().json == """
        {
          "nodes": [
            {"id": "n1", "name": "ForgeInjectTests.GraphTypes.UserService", "type": "ForgeInjectTests.GraphTypes.UserService", "lifetime": "transient", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n2", "name": "ForgeInjectTests.GraphTypes.Client", "type": "ForgeInjectTests.GraphTypes.Client", "lifetime": "singleton", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n3", "name": "ForgeInjectTests.GraphTypes.Cache", "type": "ForgeInjectTests.GraphTypes.Cache", "lifetime": "weak", "overridden": false, "preview": false, "status": "ok"}
          ],
          "edges": [
            {"from": "n1", "to": "n2"},
            {"from": "n1", "to": "n3"}
          ]
        }

        """)
  }
}
