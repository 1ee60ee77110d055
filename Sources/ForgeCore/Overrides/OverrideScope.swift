/// Overrides bound to one task for the duration of a closure.
///
/// A dialect's `withOverrides` pushes a scope with `OverrideScope.with`;
/// the scope is a task-local, so concurrent tests that each override the same
/// shared container never see each other's replacements, and the scope ends
/// with the closure, whether it returns or throws.
///
/// Instances that a scope's overrides helped build are kept here, not in the
/// container: inside the closure they behave as their lifetime says, and
/// after it they are gone.
package final class OverrideScope: @unchecked Sendable {
  // @unchecked: `entries` and `parent` are immutable; `built` is only touched
  // inside `lock.withLock`.
  /// The current task's scope. Set only through ``with(_:operation:)``,
  /// which keeps the read path's gate in step.
  package static var current: OverrideScope? { taskScope }
  @TaskLocal private static var taskScope: OverrideScope?

  package struct Target: Hashable, @unchecked Sendable {
    // @unchecked: `key` wraps a store's key type, which is Sendable.
    package let store: ObjectIdentifier
    package let key: AnyHashable
    /// Worked out once: hashing an `AnyHashable` on every lookup would cost
    /// more than the rest of an overridden resolution.
    private let keyHash: Int
    /// The key's identity bits: equal bits are an equal key, found without
    /// comparing two `AnyHashable`s (which looks up generic metadata).
    package let keyBits: SlotKeyBits?

    package init<Key: SlotKey>(store: ObjectIdentifier, key: Key) {
      self.store = store
      self.key = AnyHashable(key)
      self.keyHash = key.hashValue
      self.keyBits = key.identityBits
    }

    package static func == (lhs: Target, rhs: Target) -> Bool {
      guard lhs.keyHash == rhs.keyHash, lhs.store == rhs.store else { return false }
      // One store, so one key type: the same bits are the same key.
      if let bits = lhs.keyBits, bits == rhs.keyBits { return true }
      return lhs.key == rhs.key
    }

    package func hash(into hasher: inout Hasher) {
      hasher.combine(store)
      hasher.combine(keyHash)
    }
  }

  private let parent: OverrideScope?
  private let entries: [Target: AnyOverride]
  /// The entries again, when they are few and every key has identity
  /// bits: scanning a handful of words beats hashing a target, which costs
  /// more than the rest of an overridden resolution.
  private let fewEntries: [FewEntry]?
  private struct FewEntry {
    let store: ObjectIdentifier
    let bits: SlotKeyBits
    let override: AnyOverride
  }
  private static let fewEntriesLimit = 16
  private let lock = ConditionLock()
  private var built: [Target: Any] = [:]
  private var reaches: [ObjectIdentifier: Bool] = [:]

  /// Runs `operation` with `scope` as the current task's scope. While any
  /// scope is active, reads take the locked path that applies scopes.
  package static func with<R>(_ scope: OverrideScope, operation: () throws -> R) rethrows -> R {
    try Gates.activeOverrideScopes.counting { try $taskScope.withValue(scope, operation: operation) }
  }

  /// The asynchronous form of ``with(_:operation:)``.
  nonisolated(nonsending)
  package static func with<R>(_ scope: OverrideScope, operation: () async throws -> R) async rethrows -> R {
    try await Gates.activeOverrideScopes.counting { try await $taskScope.withValue(scope) { try await operation() } }
  }

  /// A scope whose entries shadow those of `parent`.
  package init(parent: OverrideScope?, entries: [Target: AnyOverride]) {
    self.parent = parent
    self.entries = entries
    let few = entries.compactMap { target, override in
      target.keyBits.map { FewEntry(store: target.store, bits: $0, override: override) }
    }
    fewEntries = few.count == entries.count && few.count <= Self.fewEntriesLimit ? few : nil
  }

  /// The innermost override for `target` in this scope or the ones around
  /// it, unretained: the scope keeps it as long as the scope lives.
  package func entry(for target: Target) -> Unmanaged<AnyOverride>? {
    if let fewEntries {
      // Every entry has bits: a target without them matches none of them.
      if let bits = target.keyBits {
        for index in fewEntries.indices where fewEntries[index].bits == bits && fewEntries[index].store == target.store {
          return .passUnretained(fewEntries[index].override)
        }
      }
    } else if let entry = entries[target] {
      return .passUnretained(entry)
    }
    return parent?.entry(for: target)
  }

  /// An instance built in this scope with the help of one of its overrides.
  package func instance(for target: Target) -> Any? {
    lock.withLock { built[target] }
  }

  package func remember(_ instance: Any, for target: Target) {
    lock.withLock { built[target] = instance }
  }

  /// Whether an instance of `slot`, as last built, depends (directly or
  /// through other dependencies) on something this scope overrides.
  package func reachesOverride(from slot: AnySlot) -> Bool {
    if let known = lock.withLock({ reaches[ObjectIdentifier(slot)] }) { return known }
    var visited: Set<ObjectIdentifier> = []
    var pending = slot.lockedDependencies
    var found = false
    while let next = pending.popLast() {
      guard visited.insert(ObjectIdentifier(next)).inserted else { continue }
      if entry(for: next.target) != nil {
        found = true
        break
      }
      pending += next.lockedDependencies
    }
    lock.withLock { reaches[ObjectIdentifier(slot)] = found }
    return found
  }
}
