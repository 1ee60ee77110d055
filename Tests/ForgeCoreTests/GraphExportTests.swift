import ForgeCore
import Foundation
import Testing

/// The exports of a graph made by hand, with the node kinds the dialects'
/// graphs rarely combine: an overridden node whose shape has no style of
/// its own, a failed one, and names that need escaping.
@Suite("ForgeCore: graph exports", .timeLimit(.minutes(1)))
struct GraphExportTests {
  let graph = DependencyGraph(
    nodes: [
      .init(id: "n1", name: "App.root", type: "App.Root", lifetime: "singleton", isOverridden: true, status: .affected),
      .init(id: "n2", name: "App.factory", type: "App.Factory", lifetime: "transient", isOverridden: true),
      .init(id: "n3", name: "App.session", type: "App.Session", lifetime: "weak", isOverridden: false, status: .failed),
      .init(id: "n4", name: "App.\"odd\"\u{1}name", type: "App.\"odd\"\u{1}name", lifetime: nil, isOverridden: false),
    ],
    edges: [.init(from: "n1", to: "n2"), .init(from: "n1", to: "n3"), .init(from: "n2", to: "n4")]
  )

  @Test("DOT: an override dashes the node's style or adds one; a failure fills it")
  func dotStyles() {
    let lines = graph.dot.split(separator: "\n").map(String.init)
    #expect(
      lines.contains(
        ##"  n1 [label="App.root\nApp.Root\nsingleton, overridden", shape=box, style="rounded,bold,dashed,filled", color=orange, fillcolor="#ffe0b0"];"##
      ))
    #expect(
      lines.contains(##"  n2 [label="App.factory\nApp.Factory\ntransient, overridden", shape=box, style=dashed];"##))
    #expect(
      lines.contains(
        ##"  n3 [label="App.session\nApp.Session\nweak", shape=hexagon, color=red, fillcolor="#ffbbbb", style=filled];"##
      ))
    #expect(lines.contains(##"  n4 [label="App.\"odd\"\##u{1}name\nno own build", shape=note];"##))
    #expect(lines.contains("  n1 -> n3;"))
  }

  @Test("JSON: valid, with quotes and control characters escaped")
  func jsonEscapes() throws {
    #expect(graph.json.contains(##""name": "App.\"odd\"\u0001name""##))
    let parsed = try JSONSerialization.jsonObject(with: Data(graph.json.utf8)) as? [String: Any]
    let nodes = parsed?["nodes"] as? [[String: Any]]
    #expect(nodes?.count == 4)
    #expect(nodes?[3]["name"] as? String == "App.\"odd\"\u{1}name")
    #expect(nodes?[3]["lifetime"] is NSNull)
    #expect(nodes?[2]["status"] as? String == "failed")
    #expect((parsed?["edges"] as? [[String: String]])?.count == 3)
  }

  @Test("Mermaid: quotes escaped, overridden and failing nodes classed")
  func mermaidClasses() {
    let text = graph.mermaid
    #expect(text.contains(##"  n4>"App.#quot;odd#quot;"##))
    #expect(text.contains("  class n1,n2 overridden\n"))
    #expect(text.contains("  class n3 failed\n"))
    #expect(text.contains("  class n1 affected\n"))
  }
}
