/// Resets and clears: every kept instance whose lifetime (and key) match
/// goes, wherever it is kept (the container, an override's own slot, an
/// override scope), and a build of such a lifetime in progress starts a new
/// generation, so that what it finishes is handed to its caller but never
/// kept over the clear.
extension SlotStore {
  /// Drops every kept instance whose lifetime matches.
  ///
  /// ```swift
  /// store.clearStored { $0 == .cached }   // Forge's resetCached()
  /// ```
  package func clearStored(where matches: (Lifetime) -> Bool) {
    clearStoredForKeys { _, lifetime in matches(lifetime) }
  }

  /// Drops every kept instance whose key and lifetime match, including those
  /// kept for overrides of the key and for override scopes. Instances are
  /// released after the lock is given up, since a deinit may resolve again.
  ///
  /// ```swift
  /// store.clearStoredForKeys { key, _ in !preserved.contains(key) }   // ForgeInject's reset(preserving:)
  /// ```
  ///
  /// Inside a scope that isolates this store (a test's, with ForgeTesting),
  /// only the instances kept for the calling task's scopes, out to that
  /// one, go, with those the test's own registrations and overrides keep:
  /// the container's own, and those of every other test, stay.
  package func clearStoredForKeys(where matches: (Key, Lifetime) -> Bool) {
    let isolated = isolatingScopes()
    clearKeptInstances(where: matches, in: isolated)
    // Once the boxes the clear retired are gone: each holds its slot.
    if isolated == nil { dropEmptiedKeysPerArgument() }
  }

  /// ``clearStoredForKeys(where:)`` in the scopes of `isolated`, or
  /// everywhere when it is nil; what it takes out is released on return.
  private func clearKeptInstances(where matches: (Key, Lifetime) -> Bool, in isolated: Set<ObjectIdentifier>?) {
    // Listed before locking the store: a scope takes its own lock.
    let testOverrides = isolatedOverridesOfCallingTask()
    var released: [Any] = []
    let boxes: [RetiredBox] = lock.withLock {
      func takeKept(_ slot: AnySlot, _ key: Key) {
        guard let lifetime = slot.clearableLifetime, matches(key, lifetime) else { return }
        slot.state.invalidate()
        takeStoredLocked(slot, into: &released)
      }
      func clear(_ slot: AnySlot, _ key: Key) {
        released += slot.clearScopeKept(in: isolated) { matches(key, $0) }
        if isolated == nil { takeKept(slot, key) }
      }
      for (key, slot) in slots { clear(slot, key) }
      for (key, entry) in overrides { clear(entry.keptSlot, key) }
      for override in testOverrides {
        if let key = override.keptSlot.target.key as? Key { takeKept(override.keptSlot, key) }
      }
      return retired.reclaim()
    }
    release(released, boxes: boxes)
  }

  /// Whether a scope of the calling task isolates this store (a test's,
  /// with ForgeTesting).
  package var isIsolatedForCallingTask: Bool { isolatingScope() != nil }

  /// The overrides of this store that the test isolating it for the
  /// calling task declared or installed (its registrations); none outside
  /// such a test.
  package func isolatedOverridesOfCallingTask() -> [AnyOverride] {
    isolatingScope()?.isolatedOverrides(of: identity) ?? []
  }

  /// The calling task's scope that isolates this store, if one does.
  func isolatingScope() -> OverrideScope? {
    isolation().flatMap { current, depth in current.ancestor(atDepth: depth) }
  }

  /// The calling task's scopes from the innermost out to the one that
  /// isolates this store; nil when none isolates it.
  func isolatingScopes() -> Set<ObjectIdentifier>? {
    isolatingScopeChain().map(Set.init)
  }

  /// ``isolatingScopes()`` in order, the innermost first.
  func isolatingScopeChain() -> [ObjectIdentifier]? {
    isolation().map { current, depth in current.chain.filter { $0.depth >= depth }.map(ObjectIdentifier.init) }
  }

  /// The calling task's scope and the depth of the one around it that
  /// isolates this store; nil when none does.
  private func isolation() -> (current: OverrideScope, depth: Int)? {
    guard Gates.activeOverrideScopes.value != 0, let scope = OverrideScope.current else { return nil }
    let depth = scope.isolationDepth(for: identity)
    return depth > 0 ? (scope, depth) : nil
  }
}
