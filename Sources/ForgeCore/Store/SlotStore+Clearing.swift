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
  package func clearStoredForKeys(where matches: (Key, Lifetime) -> Bool) {
    var released: [Any] = []
    let boxes: [RetiredBox] = lock.withLock {
      func clear(_ slot: AnySlot, _ key: Key) {
        released += slot.clearScopeKept { matches(key, $0) }
        guard let lifetime = slot.clearableLifetime, matches(key, lifetime) else { return }
        slot.state.invalidate()
        takeStoredLocked(slot, into: &released)
      }
      for (key, slot) in slots { clear(slot, key) }
      for (key, entry) in overrides { clear(entry.keptSlot, key) }
      return retired.reclaim()
    }
    release(released, boxes: boxes)
  }
}
