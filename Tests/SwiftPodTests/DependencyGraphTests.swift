import SwiftPod
import Testing

/// A small fixed graph: a sign-up form in a custom scope over a transient
/// validator and a singleton API.
enum GraphProviders {
  struct FormScope: ProviderScope { let children: [ProviderScope] = [] }
  final class API: Sendable {}
  final class Validator: Sendable {}
  final class Form: Sendable {
    let api: API
    let validator: Validator
    init(api: API, validator: Validator) {
      self.api = api
      self.validator = validator
    }
  }

  static let api = Provider("api") { _ in API() }
  static let validator = Provider("validator", scope: AlwaysCreateNewScope()) { _ in Validator() }
  static let form = Provider("form", scope: FormScope()) { pod in
    Form(api: pod.resolve(api), validator: pod.resolve(validator))
  }
}

@Suite("SwiftPod: the dependency graph")
struct DependencyGraphTests {
  func resolvedGraph() -> DependencyGraph {
    let pod = SwiftPod()
    _ = pod.resolve(GraphProviders.form)
    return pod.dependencyGraph()
  }

  @Test("Mermaid: a shape per lifetime, an arrow per edge")
  func mermaid() {
    #expect(
      resolvedGraph().mermaid == """
        flowchart TD
          n1[/"form: SwiftPodTests.GraphProviders.Form<br/>FormScope"/]
          n2(["api: SwiftPodTests.GraphProviders.API<br/>singleton"])
          n3["validator: SwiftPodTests.GraphProviders.Validator<br/>transient"]
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
          n1 [label="form\\nSwiftPodTests.GraphProviders.Form\\nFormScope", shape=parallelogram];
          n2 [label="api\\nSwiftPodTests.GraphProviders.API\\nsingleton", shape=box, style="rounded,bold"];
          n3 [label="validator\\nSwiftPodTests.GraphProviders.Validator\\ntransient", shape=box];
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
            {"id": "n1", "name": "form", "type": "SwiftPodTests.GraphProviders.Form", "lifetime": "FormScope", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n2", "name": "api", "type": "SwiftPodTests.GraphProviders.API", "lifetime": "singleton", "overridden": false, "preview": false, "status": "ok"},
            {"id": "n3", "name": "validator", "type": "SwiftPodTests.GraphProviders.Validator", "lifetime": "transient", "overridden": false, "preview": false, "status": "ok"}
          ],
          "edges": [
            {"from": "n1", "to": "n2"},
            {"from": "n1", "to": "n3"}
          ]
        }

        """)
  }

  @Test("an overridden provider is marked; who depends on it is asked by name")
  func overriddenAndQueries() {
    let pod = SwiftPod()
    _ = pod.resolve(GraphProviders.form)
    pod.overrideProvider(GraphProviders.api) { _ in GraphProviders.API() }
    let graph = pod.dependencyGraph()
    #expect(graph.nodes.filter(\.isOverridden).map(\.name) == ["api"])
    #expect(graph.dependents(of: "api").map(\.name) == ["form"])
    #expect(graph.dependencies(of: "form").map(\.name) == ["api", "validator"])
    pod.removeOverrideProvider(GraphProviders.api)
    #expect(pod.dependencyGraph().nodes.filter(\.isOverridden).isEmpty)
  }
}
