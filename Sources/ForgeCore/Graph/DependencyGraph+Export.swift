/// The graph as text other tools draw: Mermaid (Markdown renderers), Graphviz
/// DOT (`dot -Tsvg`) and JSON (scripts). A node's shape says its lifetime;
/// an overridden node is drawn dashed and says so (a preview one says so); in a validation report's
/// graph a failed node is filled red and a node depending on one orange. A node's label is its
/// name, its type (unless the name is the type, as in ForgeInject) and its
/// lifetime.
///
/// | lifetime | Mermaid | DOT |
/// | --- | --- | --- |
/// | singleton | stadium `([…])` | box, rounded and bold |
/// | cached | rounded `(…)` | box, rounded |
/// | transient | rectangle `[…]` | box |
/// | weak | hexagon `{{…}}` | hexagon |
/// | custom scope | parallelogram `[/…/]` | parallelogram |
/// | none (served by an override only) | flag `>…]` | note |
extension DependencyGraph {
  /// A Mermaid flowchart, top to bottom.
  ///
  /// ```swift
  /// print(container.dependencyGraph().mermaid)
  /// // flowchart TD
  /// //   n1(["AppContainer.api: MyApp.API<br/>singleton"])
  /// //   …
  /// //   n1 --> n2
  /// ```
  public var mermaid: String {
    var lines = ["flowchart TD"]
    for node in nodes {
      let title = node.name == node.type ? node.name : "\(node.name): \(node.type)"
      let label = mermaidEscaped(title) + "<br/>" + caption(node)
      let (open, close) =
        switch node.lifetime {
        case "singleton": ("([", "])")
        case "cached": ("(", ")")
        case "transient": ("[", "]")
        case "weak": ("{{", "}}")
        case nil: (">", "]")
        default: ("[/", "/]")
        }
      lines.append("  \(node.id)\(open)\"\(label)\"\(close)")
    }
    for edge in edges { lines.append("  \(edge.from) --> \(edge.to)") }
    let overridden = nodes.filter(\.isOverridden).map(\.id)
    if !overridden.isEmpty {
      lines.append("  classDef overridden stroke-dasharray: 5 5")
      lines.append("  class \(overridden.joined(separator: ",")) overridden")
    }
    for (status, style) in [(Node.Status.failed, "fill:#f88,stroke:#b00"), (.affected, "fill:#fc8,stroke:#c60")] {
      let marked = nodes.filter { $0.status == status }.map(\.id)
      guard !marked.isEmpty else { continue }
      lines.append("  classDef \(status.rawValue) \(style)")
      lines.append("  class \(marked.joined(separator: ",")) \(status.rawValue)")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// A Graphviz digraph; render it with `dot -Tsvg graph.dot -o graph.svg`.
  ///
  /// ```swift
  /// print(container.dependencyGraph().dot)
  /// // digraph dependencies {
  /// //   n1 [label="AppContainer.api\nMyApp.API\nsingleton", shape=box, style="rounded,bold"];
  /// //   …
  /// ```
  public var dot: String {
    var lines = ["digraph dependencies {", "  node [fontname=\"Helvetica\"];"]
    for node in nodes {
      let labelLines = node.name == node.type ? [node.name, caption(node)] : [node.name, node.type, caption(node)]
      let label = labelLines.map(dotEscaped).joined(separator: "\\n")
      var attributes = ["label=\"\(label)\""]
      switch node.lifetime {
      case "singleton": attributes += ["shape=box", "style=\"rounded,bold\""]
      case "cached": attributes += ["shape=box", "style=rounded"]
      case "transient": attributes += ["shape=box"]
      case "weak": attributes += ["shape=hexagon"]
      case nil: attributes += ["shape=note"]
      default: attributes += ["shape=parallelogram"]
      }
      if node.isOverridden {
        if let index = attributes.firstIndex(where: { $0.hasPrefix("style=") }) {
          let style = attributes[index].dropFirst("style=".count).filter { $0 != "\"" }
          attributes[index] = "style=\"\(style),dashed\""
        } else {
          attributes.append("style=dashed")
        }
      }
      switch node.status {
      case .ok: break
      case .failed: attributes += ["color=red", "fillcolor=\"#ffbbbb\""]
      case .affected: attributes += ["color=orange", "fillcolor=\"#ffe0b0\""]
      }
      if node.status != .ok {
        if let index = attributes.firstIndex(where: { $0.hasPrefix("style=") }) {
          let style = attributes[index].dropFirst("style=".count).filter { $0 != "\"" }
          attributes[index] = "style=\"\(style),filled\""
        } else {
          attributes.append("style=filled")
        }
      }
      lines.append("  \(node.id) [\(attributes.joined(separator: ", "))];")
    }
    for edge in edges { lines.append("  \(edge.from) -> \(edge.to);") }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The nodes and edges as JSON, keys in a fixed order:
  ///
  /// ```json
  /// {
  ///   "nodes": [
  ///     {"id": "n1", "name": "AppContainer.api", "type": "MyApp.API", "lifetime": "singleton", "overridden": false,
  ///      "preview": false, "status": "ok"}
  ///   ],
  ///   "edges": [
  ///     {"from": "n1", "to": "n2"}
  ///   ]
  /// }
  /// ```
  public var json: String {
    let nodeLines = nodes.map { node in
      let lifetime = node.lifetime.map(jsonString) ?? "null"
      return """
            {"id": \(jsonString(node.id)), "name": \(jsonString(node.name)), \
        "type": \(jsonString(node.type)), "lifetime": \(lifetime), "overridden": \(node.isOverridden), \
        "preview": \(node.isPreview), "status": \(jsonString(node.status.rawValue))}
        """
    }
    let edgeLines = edges.map { "    {\"from\": \(jsonString($0.from)), \"to\": \(jsonString($0.to))}" }
    return """
      {
        "nodes": [
      \(nodeLines.joined(separator: ",\n"))
        ],
        "edges": [
      \(edgeLines.joined(separator: ",\n"))
        ]
      }

      """
  }

  /// The second line of a node's label: its lifetime, and whether it is
  /// overridden.
  private func caption(_ node: DependencyGraph.Node) -> String {
    // No lifetime: only an override served it, or, in a validation report,
    // no registration stands for it.
    let lifetime = node.lifetime ?? (node.status == .failed ? "not registered" : "no own build")
    return ([lifetime] + (node.isOverridden ? ["overridden"] : []) + (node.isPreview ? ["preview"] : []))
      .joined(separator: ", ")
  }

  private func mermaidEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "\"": escaped += "#quot;"
      case "<": escaped += "#lt;"
      case ">": escaped += "#gt;"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  private func dotEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  private func jsonString(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      case "\t": escaped += "\\t"
      case "\r": escaped += "\\r"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          escaped.unicodeScalars.append(scalar)
        }
      }
    }
    return escaped + "\""
  }
}
