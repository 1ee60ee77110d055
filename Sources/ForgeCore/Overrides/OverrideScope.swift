/// Overrides bound to one task, and to the tasks that inherit it.
///
/// A dialect's `withOverrides` makes a scope and runs its closure with
/// ``with(_:operation:)``; the scope is a task-local, so concurrent tests
/// that each override the same shared container never see each other's
/// replacements.
///
/// **How long a scope lasts.** As long as a task-local binding does: for
/// the closure, and for any unstructured `Task {}` started inside it, which
/// inherits the binding and so keeps seeing the scope's overrides for as
/// long as it runs, whatever other tasks do. (`Task.detached` inherits no
/// task-locals and sees none.) The scope object lives exactly that long: the
/// process-wide gate that sends reads to the scoped path is raised in its
/// initialiser and lowered in its deinitialiser, so no read of a task that
/// holds a scope can skip it.
///
/// Instances that a scope's overrides helped build are kept for the scope,
/// in the slots that built them (see ``Slot``), not in the container: inside
/// the scope they behave as their lifetime says, a nested scope shares them
/// unless it overrides something they were built from, and they go with the
/// scope.
@usableFromInline package final class OverrideScope: @unchecked Sendable {
  // @unchecked: `entries`, `parent` and `depth` are immutable; `keptIn` is
  // only touched inside `lock.withLock`, `reaches` inside
  // `reachLock.withLock`.
  /// The current task's scope.
  package static var current: OverrideScope? { $taskScope.boundObject() }
  /// ``current`` unretained, for a read that uses it before it returns
  /// (see `TaskLocal.boundObjectUnretained()`).
  static var currentUnretained: Unmanaged<OverrideScope>? { $taskScope.boundObjectUnretained() }
  @TaskLocal private static var taskScope: OverrideScope?

  package struct Target: Hashable, Sendable {
    package let store: ObjectIdentifier
    /// The store's key. An existential, not an `AnyHashable`: making an
    /// `AnyHashable` asks the runtime whether the key has a custom
    /// representation (a dynamic cast, about 670 instructions) every time a
    /// slot is made, and a key of a word or two needs no allocation here.
    package let key: any Hashable & Sendable
    /// Worked out once: hashing the key on every lookup would cost
    /// more than the rest of an overridden resolution.
    private let keyHash: Int
    /// The key's identity bits: equal bits are an equal key, found without
    /// comparing two keys (a dynamic cast).
    package let keyBits: SlotKeyBits?

    package init<Key: SlotKey>(store: ObjectIdentifier, key: Key) {
      self.store = store
      self.key = key
      self.keyHash = key.hashValue
      self.keyBits = key.identityBits
    }

    package static func == (lhs: Target, rhs: Target) -> Bool {
      guard lhs.keyHash == rhs.keyHash, lhs.store == rhs.store else { return false }
      // One store, so one key type: the same bits are the same key.
      if let bits = lhs.keyBits, bits == rhs.keyBits { return true }
      return lhs.key.isEqual(to: rhs.key)
    }

    package func hash(into hasher: inout Hasher) {
      hasher.combine(store)
      hasher.combine(keyHash)
    }
  }

  private let parent: OverrideScope?
  /// 1 for a scope without a parent, one more than the parent's otherwise.
  package let depth: Int
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
  /// Memo of ``reachDepth(from:)`` by slot, valid while the process-wide
  /// edge epoch is the one it was worked out in; guarded by `reachLock`,
  /// so the dynamic exclusivity checks (about 80 instructions a read)
  /// would only cost time.
  @exclusivity(unchecked) private var reaches = ReachMemo()
  /// Guards `reaches` alone: every read in the scope of a dependency it
  /// does not override takes it, and a probe of the memo is short (see
  /// ``ShortLock``), where `lock` cost each such read about 45
  /// instructions more.
  private let reachLock = ShortLock()
  /// Slots that keep an instance for this scope, to clear when it ends.
  private var keptIn: [AnySlot] = []
  /// Stores whose kept instances this scope keeps for itself, all of them,
  /// overridden or not: a test isolated from every other test gets fresh
  /// singletons and cached instances of these stores (see ForgeTesting).
  private let isolatedStores: Set<ObjectIdentifier>
  /// Which own factories this scope forbids (ForgeTesting's strict mode).
  private let strict: StrictMode
  /// Whether any scope, from this one outwards, has a strict mode: worked
  /// out once, since a read in a scope asks (walking the scopes cost a
  /// read about 140 instructions, most of them retains and releases).
  package let hasStrictMode: Bool
  /// Whether this scope or one around it isolates a store.
  private let isolatesAnyStore: Bool
  /// Who set ``strict``, as a violation names it (ForgeTesting: the test,
  /// and where it is declared); nil when the caller did not say.
  let strictOwner: String?
  /// Isolated stores this scope shut down for itself, each of which keeps
  /// its override count raised meanwhile; guarded by `lock`. Held strongly,
  /// as `keptIn` holds slots: for no longer than the scope, and without a
  /// weak reference's side table on a store that lives for the process.
  private var shutDownStores: [ObjectIdentifier: any AddedOverrideHost] = [:]
  /// Overrides given to this isolating scope while it runs (a
  /// container-wide `override` called inside the test), with the store
  /// whose override count each raised (held for no longer than the
  /// scope); guarded by `lock`.
  private var added: [Target: (override: AnyOverride, host: any AddedOverrideHost)] = [:]
  /// Targets whose overrides this scope was made with were removed while
  /// it ran (`removeOverride` inside the test that declared them), with the
  /// store whose override count each raised; guarded by `lock`, and
  /// counted in ``Gates/addedScopeOverrides`` as added overrides are.
  private var removedDeclared: [Target: any AddedOverrideHost] = [:]
  /// Added overrides since replaced or removed, kept as long as the scope:
  /// a lookup hands them out unretained, as it does the scope's own.
  private var retiredAdded: [AnyOverride] = []

  /// Runs `operation` with `scope` as the current task's scope.
  package static func with<R>(_ scope: OverrideScope, operation: () throws -> R) rethrows -> R {
    try $taskScope.withValue(scope, operation: operation)
  }

  /// Runs `operation` outside any scope: what a dependency's own build for
  /// the container runs, even when a task in a scope started it (an async
  /// or main-actor build does not report which scopes it used, so it must
  /// use none).
  package static func runOutsideAnyScope<R>(_ operation: () throws -> R) rethrows -> R {
    try $taskScope.withValue(nil, operation: operation)
  }

  /// The asynchronous form of ``runOutsideAnyScope(_:)``.
  nonisolated(nonsending)
    package static func awaitOutsideAnyScope<R>(_ operation: () async throws -> R) async rethrows -> R
  {
    try await $taskScope.withValue(nil) { try await operation() }
  }

  /// The asynchronous form of ``with(_:operation:)``.
  nonisolated(nonsending)
    package static func with<R>(_ scope: OverrideScope, operation: () async throws -> R) async rethrows -> R
  {
    try await $taskScope.withValue(scope) { try await operation() }
  }

  /// A scope whose entries shadow those of `parent`, and which keeps every
  /// instance of the `isolating` stores for itself.
  package init(
    parent: OverrideScope?,
    entries: [Target: AnyOverride],
    isolating: Set<ObjectIdentifier> = [],
    strict: StrictMode = .off,
    strictOwner: String? = nil
  ) {
    self.isolatedStores = isolating
    self.strict = strict
    self.strictOwner = strictOwner
    self.parent = parent
    hasStrictMode = strict != .off || parent?.hasStrictMode == true
    isolatesAnyStore = !isolating.isEmpty || parent?.isolatesAnyStore == true
    self.depth = (parent?.depth ?? 0) + 1
    self.entries = entries
    let few = entries.compactMap { target, override in
      target.keyBits.map { FewEntry(store: target.store, bits: $0, override: override) }
    }
    fewEntries = few.count == entries.count && few.count <= Self.fewEntriesLimit ? few : nil
    ThreadRecords.moveScopeGate(by: 1)
  }

  deinit {
    reachLock.deallocate()  // no task holds the scope: no read asks its memo
    // Before the scope count drops: while an added override raises its
    // store's override count, no read may take the lock-free path for it.
    for entry in added.values { entry.host.addedOverrideEnded() }
    for host in removedDeclared.values { host.addedOverrideEnded() }
    let addedCount = added.count + removedDeclared.count
    if addedCount != 0 { Gates.addedScopeOverrides.add(-addedCount) }
    ThreadRecords.moveScopeGate(by: -1)
    for host in shutDownStores.values { host.addedOverrideEnded() }
    if !shutDownStores.isEmpty { Gates.scopedShutdowns.add(-shutDownStores.count) }
    // No task holds the scope any more: what slots keep for it goes.
    let me = ObjectIdentifier(self)
    for slot in keptIn {
      let dropped = slot.storeLock.withLock { slot.dropScopeKept(of: me) }
      _ = dropped  // released here, outside the store's lock: a deinit may resolve
    }
  }

  /// The innermost override for `target` in this scope or the ones around
  /// it, unretained (the scope keeps it as long as the scope lives), with
  /// the depth of the scope that declares it.
  package func overrideOfTarget(_ target: Target) -> (override: Unmanaged<AnyOverride>, depth: Int)? {
    var scope: OverrideScope? = self
    while let current = scope {
      if let found = current.ownOverrideOfTarget(target) { return (found, current.depth) }
      scope = current.parent
    }
    return nil
  }

  /// ``overrideOfTarget(_:)`` for `slot`'s target, read in place: copying a
  /// target retains its key, a cost the overridden read path avoids.
  package func override(forSlot slot: AnySlot) -> (override: Unmanaged<AnyOverride>, depth: Int)? {
    guard fewEntries != nil else { return overrideOfTarget(slot.target) }
    return firstOutwards { current in current.ownOverride(forSlot: slot).map { ($0, current.depth) } }
  }

  /// The first answer `body` gives for this scope or one around it,
  /// innermost first, each scope borrowed, not retained: each keeps its
  /// parent, and the caller keeps this one (a retaining walk cost a read
  /// in a scope a retain and a release per scope).
  @inline(__always)
  private func firstOutwards<Answer>(_ body: (OverrideScope) -> Answer?) -> Answer? {
    var scope = Unmanaged.passUnretained(self)
    while true {
      let (answer, parent) = scope._withUnsafeGuaranteedRef { current in
        (body(current), current.parent.map { Unmanaged.passUnretained($0) })
      }
      if let answer { return answer }
      guard let parent else { return nil }
      scope = parent
    }
  }

  private func ownOverride(forSlot slot: AnySlot) -> Unmanaged<AnyOverride>? {
    guard let fewEntries else { return entries[slot.target].map { .passUnretained($0) } }
    guard let bits = slot.target.keyBits else { return nil }
    let store = slot.target.store
    for index in fewEntries.indices where fewEntries[index].bits == bits && fewEntries[index].store == store {
      return .passUnretained(fewEntries[index].override)
    }
    return nil
  }

  private func ownOverrideOfTarget(_ target: Target) -> Unmanaged<AnyOverride>? {
    if Gates.addedScopeOverrides.value != 0 {
      let (found, removed) = lock.withLock { (added[target]?.override, removedDeclared[target] != nil) }
      if let found { return .passUnretained(found) }
      // Its own override removed: the scopes around it decide.
      if removed { return nil }
    }
    if let fewEntries {
      // Every entry has bits: a target without them matches none of them.
      guard let bits = target.keyBits else { return nil }
      for index in fewEntries.indices where fewEntries[index].bits == bits && fewEntries[index].store == target.store {
        return .passUnretained(fewEntries[index].override)
      }
      return nil
    }
    return entries[target].map { .passUnretained($0) }
  }

  /// This scope or the one around it at `depth` (at most ``depth``).
  package func ancestor(atDepth wanted: Int) -> OverrideScope? {
    var scope: OverrideScope? = self
    while let current = scope, current.depth > wanted { scope = current.parent }
    return scope?.depth == wanted ? scope : nil
  }

  /// The scopes from this one outwards.
  package var chain: [OverrideScope] {
    var scopes: [OverrideScope] = []
    var scope: OverrideScope? = self
    while let current = scope {
      scopes.append(current)
      scope = current.parent
    }
    return scopes
  }

  /// Gives this scope, which isolates `host`'s store, `override` for
  /// `target` while it runs, in place of one given before; the store's
  /// override count stays raised until it is removed or the scope ends,
  /// so that its reads take the path that asks the scope.
  package func addOverride(_ override: AnyOverride, for target: Target, host: any AddedOverrideHost) {
    let replaced = lock.withLock { () -> AnyOverride? in
      let replaced = added.updateValue((override, host), forKey: target)?.override
      if let replaced { retiredAdded.append(replaced) }
      return replaced
    }
    if replaced == nil {
      host.addedOverrideBegan()
      Gates.addedScopeOverrides.add(1)
    }
    // What the scope's instances are built from changes with it.
    Gates.edgeEpoch.add(1)
  }

  /// Removes the overrides given to this scope while it ran for the
  /// targets `matches` accepts; false when there was none.
  @discardableResult
  package func removeAddedOverrides(where matches: (Target) -> Bool) -> Bool {
    let removed = lock.withLock { () -> [(override: AnyOverride, host: any AddedOverrideHost)] in
      let targets = added.keys.filter(matches)
      let removed = targets.compactMap { added.removeValue(forKey: $0) }
      retiredAdded += removed.map(\.override)
      return removed
    }
    for entry in removed { entry.host.addedOverrideEnded() }
    guard !removed.isEmpty else { return false }
    Gates.addedScopeOverrides.add(-removed.count)
    Gates.edgeEpoch.add(1)
    return true
  }

  /// Removes, for the rest of this scope, the override of `target` it was
  /// made with (a test's declared override, which `removeOverride` inside
  /// the test takes away); false when it was made with none or it is gone
  /// already. Like an added override, the removal raises `host`'s override
  /// count while the scope lasts, so that reads of its store ask the scope.
  @discardableResult
  package func removeDeclaredOverride(for target: Target, host: any AddedOverrideHost) -> Bool {
    guard entries[target] != nil else { return false }
    let isNew = lock.withLock {
      guard removedDeclared[target] == nil else { return false }
      removedDeclared[target] = host
      return true
    }
    guard isNew else { return false }
    host.addedOverrideBegan()
    Gates.addedScopeOverrides.add(1)
    // What the scope's instances are built from changes with it.
    Gates.edgeEpoch.add(1)
    return true
  }

  /// Notes that this scope shut `store`, which it isolates, down for
  /// itself; false when it had already. Until the scope ends, the store's
  /// override count stays raised, so that no read of it takes the
  /// lock-free path that serves a scope's override without asking whether
  /// the scope shut the store down (see ``SlotStore``'s read path).
  package func noteShutDown(of store: ObjectIdentifier, host: any AddedOverrideHost) -> Bool {
    let isNew = lock.withLock {
      guard shutDownStores[store] == nil else { return false }
      shutDownStores[store] = host
      return true
    }
    if isNew {
      host.addedOverrideBegan()
      Gates.scopedShutdowns.add(1)
    }
    return isNew
  }

  /// The overrides of `store` that this scope and those around it within
  /// the one isolating `store` declare or were given: a test's own
  /// registrations, whose kept instances its shutdown stops.
  package func isolatedOverrides(of store: ObjectIdentifier) -> [AnyOverride] {
    let isolated = isolationDepth(for: store)
    guard isolated > 0 else { return [] }
    var found: [AnyOverride] = []
    var scope: OverrideScope? = self
    while let current = scope, current.depth >= isolated {
      found += current.entries.filter { $0.key.store == store }.map(\.value)
      found += current.lock.withLock { current.added.filter { $0.key.store == store }.map(\.value.override) }
      scope = current.parent
    }
    return found
  }

  /// Whether this scope, or one around it, shut `store` down for itself.
  package func hasShutDown(_ store: ObjectIdentifier) -> Bool {
    var scope: OverrideScope? = self
    while let current = scope {
      if current.lock.withLock({ current.shutDownStores[store] != nil }) { return true }
      scope = current.parent
    }
    return false
  }

  /// Notes that `slot` keeps an instance for this scope.
  package func noteKept(in slot: AnySlot) {
    lock.withLock { keptIn.append(slot) }
  }

  /// The depth of the innermost scope, from this one outwards, that
  /// overrides something an instance of `slot` was built from, as its own
  /// factory's last recorded build resolved it (directly or through other
  /// dependencies); 0 when none does, or when nothing is recorded yet.
  ///
  /// A dependency that a scope overrides counts at that scope; what its own
  /// factory would read does not matter, since the override replaces it.
  /// Nor does a dependency that a container-wide override replaces lead
  /// any further.
  package func reachDepth(from slot: AnySlot) -> Int {
    // An isolating scope keeps every kept instance of its stores, built from
    // an override or not, recorded or not.
    // An inner scope may override what it is built from, which only its
    // recorded edges tell; unrecorded, its build keeps it where it belongs
    // (see SlotStore.resolveKept).
    let isolated = isolationDepth(for: slot.target.store)
    if isolated == depth { return depth }
    guard slot.dependenciesRecorded.value != 0 else { return 0 }
    return max(isolated, overrideReachDepth(from: slot))
  }

  /// The scope that keeps the instance of an async or main-actor build of
  /// `slot` that a task in this scope reads, judged by what the slot's
  /// last build recorded: nil when it reached none of the overrides (the
  /// container's instance), else the innermost scope it reached. This
  /// scope itself while nothing is recorded (or no slot is known), when it
  /// isolates the store, or when a strict mode must see what the factory
  /// reads.
  package func keeper(ofRecorded slot: AnySlot?) -> OverrideScope? {
    guard let slot, slot.dependenciesRecorded.value != 0, !hasStrictMode else { return self }
    let reach = reachDepth(from: slot)
    return reach == 0 ? nil : ancestor(atDepth: reach) ?? self
  }

  /// Whether this scope's strict mode forbids `slot`'s own factory.
  func forbids(_ slot: AnySlot) -> Bool {
    switch strict {
    case .off: false
    case .dependencies(let names): StrictMode.names(names, include: slot.name)
    case .allUnoverridden: isolatedStores.contains(slot.target.store)
    }
  }

  /// The scope around this one.
  var parentScope: OverrideScope? { parent }

  /// The depth of the innermost scope, from this one outwards, that
  /// isolates `store`; 0 when none does.
  package func isolationDepth(for store: ObjectIdentifier) -> Int {
    // Most chains isolate nothing: no walk, no hash.
    guard isolatesAnyStore else { return 0 }
    return firstOutwards { $0.isolatedStores.contains(store) ? $0.depth : nil } ?? 0
  }

  /// ``reachDepth(from:)`` through overrides alone.
  private func overrideReachDepth(from slot: AnySlot) -> Int {
    let epoch = Gates.edgeEpoch.value
    let id = ObjectIdentifier(slot)
    if let known = reachLock.withLock({ reaches.depth(for: id, epoch: epoch) }) { return known }
    var visited: Set<ObjectIdentifier> = []
    var pending = slot.lockedDependencies
    var found = 0
    while let next = pending.popLast(), found < depth {
      guard visited.insert(ObjectIdentifier(next)).inserted else { continue }
      if let overridden = overrideOfTarget(next.target) {
        found = max(found, overridden.depth)
        continue
      }
      pending += next.lockedDependenciesUnlessOverridden ?? []
    }
    reachLock.withLock { reaches.set(found, for: id, epoch: epoch) }
    return found
  }
}

/// A store that raises its override count while a scope holds an
/// override given to it for one of the store's keys.
package protocol AddedOverrideHost: AnyObject {
  func addedOverrideBegan()
  func addedOverrideEnded()
}

extension Hashable {
  /// Whether `other` is a value of this type equal to this one: how two
  /// targets' keys compare, without wrapping either in an `AnyHashable`.
  fileprivate func isEqual(to other: any Hashable) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}

/// An override scope's memo of how deep a slot reaches into its overrides,
/// by the slot's address, each answer valid in the edge epoch it was worked
/// out in: open addressing with a multiplying hash, where a dictionary's
/// hashing cost a read in a scope about 100 instructions more.
package struct ReachMemo {
  package init() {}

  /// One place: a slot's address (0: empty), and the depth worked out for
  /// it in an epoch. One array of places, probed through its buffer: two
  /// arrays, each access bounds-checked, cost a read in a scope about 15
  /// instructions more.
  private struct Place {
    var address: UInt
    var epoch: Int
    var depth: Int
  }
  private var places: [Place] = []
  private var count = 0

  /// The depth worked out for `slot` in `epoch`, if there is one.
  package func depth(for slot: ObjectIdentifier, epoch: Int) -> Int? {
    places.withUnsafeBufferPointer { places in
      guard !places.isEmpty else { return nil }
      let place = places[Self.index(of: Self.address(slot), in: places)]
      guard place.address != 0, place.epoch == epoch else { return nil }
      return place.depth
    }
  }

  /// Remembers `depth` for `slot`, worked out in `epoch`.
  package mutating func set(_ depth: Int, for slot: ObjectIdentifier, epoch: Int) {
    if (count + 1) * 2 > places.count { grow() }
    let address = Self.address(slot)
    places.withUnsafeMutableBufferPointer { places in
      let index = Self.index(of: address, in: UnsafeBufferPointer(places))
      if places[index].address == 0 { count += 1 }
      places[index] = Place(address: address, epoch: epoch, depth: depth)
    }
  }

  private mutating func grow() {
    let old = places.filter { $0.address != 0 }
    places = Array(repeating: Place(address: 0, epoch: 0, depth: 0), count: Swift.max(16, places.count * 2))
    count = 0
    places.withUnsafeMutableBufferPointer { places in
      for place in old {
        places[Self.index(of: place.address, in: UnsafeBufferPointer(places))] = place
        count += 1
      }
    }
  }

  private static func address(_ slot: ObjectIdentifier) -> UInt { UInt(bitPattern: Int(bitPattern: slot)) }

  /// Where `address` is in `places`, or the empty place where it would go:
  /// probing on from the multiplied address's top bits. The table (a power
  /// of two in size) is never more than half full, so an empty place ends
  /// the probe.
  @inline(__always)
  private static func index(of address: UInt, in places: UnsafeBufferPointer<Place>) -> Int {
    let mask = places.count - 1
    var index = Int(
      truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - places.count.trailingZeroBitCount))
    while places[index].address != 0, places[index].address != address { index = (index &+ 1) & mask }
    return index
  }
}
