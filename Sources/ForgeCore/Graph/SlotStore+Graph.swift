/// The recorded graph of a store, for ``DependencyGraph``.
extension SlotStore {
  /// The store's slots in creation order, then the slots of other stores
  /// their recorded edges reach, with those edges.
  ///
  /// Takes one store's lock at a time: the slot list under this store's,
  /// each slot's edges and lifetime under its own store's.
  package func dependencyGraph() -> DependencyGraph {
    let own = lock.withLock { slots.values.sorted { $0.serial < $1.serial } }
    let scope = OverrideScope.current
    var numbering = GraphNumbering()
    for slot in own { numbering.number(slot) }
    var nodes: [DependencyGraph.Node] = []
    var edges: [DependencyGraph.Edge] = []
    var index = 0
    // `order` grows while it is walked: other stores' slots join at the end.
    while index < numbering.order.count {
      let slot = numbering.order[index]
      index += 1
      let (recorded, containerOverride, preview) = slot.storeLock.withLock {
        (slot.graphEdges, slot.overrideCell.pointee != nil, slot.servedByPreview)
      }
      let (dependencies, lifetime) = recorded
      let scoped = scope?.overrideOfTarget(slot.target) != nil
      nodes.append(
        numbering.node(slot, lifetime: lifetime, isOverridden: containerOverride || scoped, isPreview: preview))
      for dependency in dependencies {
        numbering.number(dependency)
        edges.append(numbering.edge(slot, dependency))
      }
    }
    return DependencyGraph(nodes: nodes, edges: edges)
  }
}

extension Lifetime {
  /// How graphs name the lifetime: a custom scope by the name its dialect
  /// registered (``ScopeNames``).
  package var graphName: String {
    switch self {
    case .transient: "transient"
    case .singleton: "singleton"
    case .cached: "cached"
    case .weak: "weak"
    case .scoped(let id): ScopeNames.name(of: id)
    }
  }
}

/// The names of custom scopes and which scopes clearing each one clears,
/// for graphs and validation: a dialect registers a scope when it first
/// sees it (SwiftPod, when a provider is created).
package enum ScopeNames {
  private struct Entry {
    var name: String
    var clears: Set<ObjectIdentifier>
  }
  private static let entries = LockedValue<[ObjectIdentifier: Entry]>([:])

  /// Remembers `name` for the scope `id`, and the scopes clearing it also
  /// clears (its children, theirs, and so on).
  package static func register(
    _ id: ObjectIdentifier, name: @autoclosure () -> String, clears: @autoclosure () -> Set<ObjectIdentifier> = []
  ) {
    entries.withValue { entries in
      if entries[id] == nil { entries[id] = Entry(name: name(), clears: clears()) }
    }
  }

  /// The name registered for `id`, or "custom scope".
  package static func name(of id: ObjectIdentifier) -> String {
    entries.withValue { $0[id]?.name } ?? "custom scope"
  }

  /// Whether clearing the scope `cleared` also clears the scope `other`.
  package static func clearing(_ cleared: ObjectIdentifier, alsoClears other: ObjectIdentifier) -> Bool {
    entries.withValue { $0[cleared]?.clears.contains(other) ?? false }
  }
}
