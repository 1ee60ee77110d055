/// Which thread waits for which, across every store in the process: the
/// one place a cycle that crosses containers, threads and once-cells (a
/// ForgeInject `@Inject` property) can be seen.
///
/// A thread consults it only when it is about to wait for another thread's
/// build, never on a hit or an uncontended build. Before waiting it records
/// an edge "I wait for the thread building this slot"; if following the
/// edges from that thread leads back to the caller, waiting would never end,
/// and the caller gets the cycle's path instead.
///
/// Lock order: a store's lock, then this graph's; never the reverse.
///
/// ```swift
/// if let path = WaitForGraph.beginWait(me, chain: context.buildingSlots, for: slot, owner: owner) {
///   throw DependencyCycleError(path: path)
/// }
/// lock.wait()
/// WaitForGraph.endWait(me)
/// ```
package enum WaitForGraph {
  /// A waiting thread: the slot it waits for, the thread building that
  /// slot when it began waiting, and its own builds in progress.
  struct Edge {
    let slot: AnySlot
    let owner: ObjectIdentifier
    let chain: [AnySlot]
  }

  private static let state = LockedValue<[ObjectIdentifier: Edge]>([:])
  /// How many edges exist, so that finishing a build skips the graph's lock
  /// when nobody waits anywhere.
  private static let edgeCount = AtomicCounter()

  /// Records that `me`, building `chain` (outermost first), is about to wait
  /// for `owner`, which builds `slot`. Returns the cycle's path instead, and
  /// records nothing, when `owner` waits (maybe through others) for `me`.
  package static func beginWait(
    _ me: ObjectIdentifier,
    chain: [AnySlot],
    for slot: AnySlot,
    owner: ObjectIdentifier
  ) -> [String]? {
    state.withValue { edges in
      if let path = cycle(in: edges, from: slot, owner: owner, me: me, chain: chain) { return path }
      if edges.updateValue(Edge(slot: slot, owner: owner, chain: chain), forKey: me) == nil { edgeCount.add(1) }
      return nil
    }
  }

  /// Removes the edge `me` recorded, once it stops waiting.
  package static func endWait(_ me: ObjectIdentifier) {
    state.withValue { edges in
      if edges.removeValue(forKey: me) != nil { edgeCount.add(-1) }
    }
  }

  /// Removes the edges of threads waiting for `slot`, whose build just
  /// ended: they are about to wake, and no longer wait for its builder.
  package static func buildEnded(_ slot: AnySlot) {
    guard edgeCount.value > 0 else { return }
    state.withValue { edges in
      let stale = edges.filter { $0.value.slot === slot }.map(\.key)
      for key in stale { edges[key] = nil }
      if !stale.isEmpty { edgeCount.add(-stale.count) }
    }
  }

  /// The path of the cycle that `me` waiting for `owner` (building `slot`)
  /// would close, if any: `me`'s chain from the slot the last thread waits
  /// for, then each waiting thread's chain from the slot it builds.
  private static func cycle(
    in edges: [ObjectIdentifier: Edge],
    from slot: AnySlot,
    owner: ObjectIdentifier,
    me: ObjectIdentifier,
    chain: [AnySlot]
  ) -> [String]? {
    var segments: [String] = []
    var target = slot
    var current = owner
    var hops = 0
    while hops <= edges.count {
      if current == me {
        let mine = chain.drop { $0 !== target }.map(\.name)
        return (mine.isEmpty ? [target.name] : mine) + segments + [target.name]
      }
      guard let edge = edges[current] else { return nil }
      segments += edge.chain.drop { $0 !== target }.map(\.name)
      target = edge.slot
      current = edge.owner
      hops += 1
    }
    return nil
  }
}
