/// What a container has resolved so far: its dependencies, how long each is
/// kept, and which ones each built instance resolved while it was built.
///
/// Every dialect hands one out (Forge's `Container`, ForgeInject's
/// `ForgeContainer`, a `SwiftPod` and a `Fetcher`, each through
/// `dependencyGraph()`). Render it for a review or a document, or query it in
/// a test:
///
/// ```swift
/// let graph = AppContainer.shared.dependencyGraph()
/// print(graph.mermaid)                       // paste into a Markdown file
/// try graph.dot.write(toFile: "deps.dot", atomically: true, encoding: .utf8)
/// #expect(graph.dependents(of: "AppContainer.network").map(\.name) == ["AppContainer.api"])
/// ```
///
/// An edge `a → b` means "`b` was resolved while `a`'s own factory built
/// `a`"; what override and preview factories resolve is not recorded. A
/// dependency appears once something resolved it; a graph of everything a
/// container declares needs those resolutions first.
public struct DependencyGraph: Sendable, Hashable {
  /// One dependency.
  public struct Node: Sendable, Hashable, Identifiable {
    /// Stable within one graph (`n1`, `n2`, … in the graph's order); the
    /// identifier the exports use.
    public let id: String
    /// The dependency as messages name it (`AppContainer.network`,
    /// `Provider<MyApp.Clock>`).
    public let name: String
    /// The type of its instances, module-qualified; for an async or
    /// main-actor dependency, the instance's type, not its handle's.
    public let type: String
    /// How long it is kept: `transient`, `singleton`, `cached`, `weak`, or
    /// a custom scope's name; nil when only an override has served it.
    public let lifetime: String?
    /// Whether an override replaces it now (container-wide, or in the
    /// calling task's `withOverrides` scope).
    public let isOverridden: Bool
    /// Whether its preview factory has served it (in Xcode Previews, or
    /// inside `Forge.withPreviewMode`).
    public let isPreview: Bool
    /// In a validation report's graph, whether validation found it broken
    /// or depending on something broken; `.ok` everywhere else.
    public let status: Status

    /// What validation found about a node.
    public enum Status: String, Sendable, Hashable {
      /// Nothing wrong (or not validated).
      case ok
      /// The dependency a problem is about: missing, in a cycle, of the
      /// wrong type, failed to build, or held past its lifetime (drawn red).
      case failed
      /// Depends on a failed node, directly or not (drawn orange).
      case affected
    }

    /// A node; graphs are made by the containers, this is for tests that
    /// build expected values.
    public init(
      id: String, name: String, type: String, lifetime: String?, isOverridden: Bool, isPreview: Bool = false,
      status: Status = .ok
    ) {
      self.id = id
      self.name = name
      self.type = type
      self.lifetime = lifetime
      self.isOverridden = isOverridden
      self.isPreview = isPreview
      self.status = status
    }
  }

  /// "`to` was resolved while `from` was built", by node id.
  public struct Edge: Sendable, Hashable {
    public let from: String
    public let to: String

    public init(from: String, to: String) {
      self.from = from
      self.to = to
    }
  }

  /// The dependencies, the container's own in the order they were first
  /// resolved, then those of other containers that they reached (for a
  /// validation report's graph: in the order validation reached them).
  public let nodes: [Node]
  /// The edges, grouped by `from` in node order, each group in resolution order.
  public let edges: [Edge]

  /// A graph of `nodes` and `edges`.
  public init(nodes: [Node], edges: [Edge]) {
    self.nodes = nodes
    self.edges = edges
  }

  /// The node named `name`, if the graph has one.
  ///
  /// ```swift
  /// graph.node(named: "AppContainer.network")?.lifetime  // "singleton"
  /// ```
  public func node(named name: String) -> Node? {
    nodes.first { $0.name == name }
  }

  /// What `name` resolved while it was built, and what those resolved, in
  /// breadth-first order; only the direct ones without `transitively`.
  ///
  /// ```swift
  /// graph.dependencies(of: "AppContainer.api").map(\.name)  // ["AppContainer.network", …]
  /// ```
  public func dependencies(of name: String, transitively: Bool = true) -> [Node] {
    walk(from: name, transitively: transitively) { id in edges.filter { $0.from == id }.map(\.to) }
  }

  /// Who resolved `name` while being built, and who resolved those, in
  /// breadth-first order; only the direct ones without `transitively`.
  /// What a change to `name` can affect.
  ///
  /// ```swift
  /// graph.dependents(of: "AppContainer.network").map(\.name)  // ["AppContainer.api", …]
  /// ```
  public func dependents(of name: String, transitively: Bool = true) -> [Node] {
    walk(from: name, transitively: transitively) { id in edges.filter { $0.to == id }.map(\.from) }
  }

  private func walk(from name: String, transitively: Bool, next: (String) -> [String]) -> [Node] {
    guard let start = node(named: name) else { return [] }
    let byID = Dictionary(nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var seen: Set<String> = [start.id]
    var found: [Node] = []
    var frontier = [start.id]
    while !frontier.isEmpty {
      var following: [String] = []
      for id in frontier {
        for neighbour in next(id) where seen.insert(neighbour).inserted {
          if let node = byID[neighbour] { found.append(node) }
          following.append(neighbour)
        }
      }
      frontier = transitively ? following : []
    }
    return found
  }
}
