/// Gives slots the node ids of a ``DependencyGraph`` (`n1`, `n2`, …) in the
/// order they are first met, and makes their nodes, for the graph a store
/// exports. A validation report's graph numbers its nodes itself (it keeps
/// a record per slot already), with the same ids (``nodeID(at:)``).
struct GraphNumbering {
  /// The id of the node at `position` (from 0) among a graph's nodes.
  static func nodeID(at position: Int) -> String { "n\(position + 1)" }

  /// Every slot numbered so far, in order.
  private(set) var order: [AnySlot] = []
  private var ids: [ObjectIdentifier: String] = [:]

  /// Numbers `slot` if it is new.
  mutating func number(_ slot: AnySlot) {
    let identity = ObjectIdentifier(slot)
    guard ids[identity] == nil else { return }
    ids[identity] = Self.nodeID(at: order.count)
    order.append(slot)
  }

  /// The id of `slot`, numbered already.
  func id(of slot: AnySlot) -> String {
    guard let id = ids[ObjectIdentifier(slot)] else {
      fatalError("ForgeCore: \(ForgeDiagnostic.internalError("a graph edge names a slot that was never numbered"))")
    }
    return id
  }

  /// The node of `slot`.
  func node(
    _ slot: AnySlot,
    lifetime: Lifetime?,
    isOverridden: Bool,
    isPreview: Bool = false,
    status: DependencyGraph.Node.Status = .ok
  ) -> DependencyGraph.Node {
    DependencyGraph.Node(
      id: id(of: slot), name: slot.name, type: slot.instanceTypeName, lifetime: lifetime?.graphName,
      isOverridden: isOverridden, isPreview: isPreview, status: status)
  }

  /// The edge from `from` to `to`, both numbered.
  func edge(_ from: AnySlot, _ to: AnySlot) -> DependencyGraph.Edge {
    DependencyGraph.Edge(from: id(of: from), to: id(of: to))
  }
}
