/// Dialects that register a factory before anything resolves it
/// (ForgeInject): a registration is a flat record until the first
/// resolution, which turns it into a slot holding the factory.
extension SlotStore {
  /// Registers a dialect's `builder` for `key` as it is, to be turned into
  /// the slot's factory by `bind` only when something resolves the key:
  /// a builder that takes the container, say, needs no closure binding it
  /// (an allocation) until then. Replaces an earlier registration and drops
  /// the instance the earlier one built.
  ///
  /// `bind` must turn every builder registered for `key` into a factory of
  /// `T`; resolutions pass the same conversion to
  /// ``resolveRegistered(_:as:bind:)``. A dialect whose builders are
  /// factories already passes `{ $0 as? @Sendable () throws -> T }`.
  ///
  /// Inlinable, so that a dialect's call specialises the dictionary work
  /// for its key type: unspecialised, looking up the generic metadata
  /// costs more than the rest of a registration.
  @inlinable
  package func register<T>(
    _ key: Key,
    name: @autoclosure () -> SlotName,
    lifetime: Lifetime,
    builder: Any,
    as type: T.Type,
    bind: (Any) -> (@Sendable () throws -> T)?
  ) throws {
    lock.lock()
    guard slots[key] != nil else {
      // Nothing resolved the key yet: a record is enough.
      let registration = SlotRegistration(name: name(), lifetime: lifetime, builder: builder)
      // A container that registers usually registers many: grow in few steps.
      if registrations.isEmpty { registrations.reserveCapacity(64) }
      if registrations.updateValue(registration, forKey: key) == nil {
        registeredKeys.append(key)
        unresolvedRegistrationCount.add(1)
      }
      lock.unlock()
      return
    }
    lock.unlock()
    guard let factory = bind(builder) else {
      // fatalError, not preconditionFailure: an optimised build drops a
      // precondition's message, and this one says which key went wrong.
      let diagnostic = ForgeDiagnostic.internalError(
        "the builder registered for \(name().rendered) does not fit its bind",
        reason: "bind must accept the builders it is registered with (the dialect that registers it has a bug)."
      )
      fatalError("ForgeCore: \(diagnostic)")
    }
    // A registered key (a type) never goes, so its slot is still there.
    try reRegister(key, lifetime: lifetime, factory: factory)
  }

  /// Replaces the factory of `key`'s slot and drops the instance the
  /// earlier factory built.
  @usableFromInline
  func reRegister<T>(_ key: Key, lifetime: Lifetime, factory: @escaping @Sendable () throws -> T) throws {
    var released: [Any] = []
    let boxes: [RetiredBox] = try lock.withLock {
      let slot: Slot<T> = try typedLocked(slots[key]!, for: key)
      if !slot.hasRegisteredFactory { registeredKeys.append(key) }
      let replaced = slot.publishRegistration(Slot<T>.Registered(factory: factory, lifetime: lifetime))
      retired.retire(replaced, of: slot, kind: .registration)
      slot.state.invalidate()
      takeStoredLocked(slot, into: &released)
      return retired.reclaim()
    }
    release(released, boxes: boxes)
  }

  /// Resolves `key` with its registered builder; throws ``NotRegistered``
  /// when nothing is registered for it. `bind`, the conversion passed to
  /// ``register(_:name:lifetime:builder:as:bind:)``, makes the factory from
  /// the builder on the key's first resolution.
  ///
  /// The published read, then ``resolveRegisteredMissed(_:as:known:bind:)``
  /// out of line. A dialect's entry point makes the two calls itself, so
  /// that its hit keeps a small frame; this is for the handles of
  /// ForgeInject's async and main-actor registrations, read past their own
  /// published instance.
  @inlinable
  package func resolveRegistered<T>(
    _ key: Key,
    as type: T.Type = T.self,
    bind: (Any) -> (@Sendable () throws -> T)?
  ) throws -> T {
    var known: SlotTableEntry?
    if let value = publishedValue(bits: key.identityBits, as: T.self, known: &known) { return value }
    return try resolveRegisteredBuilding(
      key, as: T.self, bind: bind, entry: known, thread: ResolutionContext.currentFast)
  }

  /// ``resolveRegistered(_:as:bind:)`` after
  /// ``publishedValue(bits:as:comparingType:known:fastTable:)`` missed: the rest of it, with the
  /// entry the read found (no second lookup).
  ///
  /// ```swift
  /// var known: SlotTableEntry?
  /// if let value = store.publishedValue(bits: key.identityBits, as: T.self, known: &known) { return value }
  /// return try store.resolveRegisteredMissed(key, as: T.self, known: known) { bind($0, as: T.self) }
  /// ```
  @inlinable @inline(__always)
  package func resolveRegisteredMissed<T>(
    _ key: Key,
    as type: T.Type,
    known: SlotTableEntry?,
    bind: (Any) -> (@Sendable () throws -> T)?
  ) throws -> T {
    try resolveRegisteredBuildingInline(
      key, as: T.self, bind: bind, entry: known, thread: ResolutionContext.currentFast)
  }

  /// ``resolveRegistered(_:as:bind:)`` past the published read, out of
  /// line: the hit stays a small function. `entry` is what the read found
  /// in the table (nil: the key is not there, or an override may apply),
  /// so that a transient's build does not look it up again.
  @inlinable @inline(never)
  func resolveRegisteredBuilding<T>(
    _ key: Key,
    as type: T.Type,
    bind: (Any) -> (@Sendable () throws -> T)?,
    entry: SlotTableEntry?,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    try resolveRegisteredBuildingInline(key, as: T.self, bind: bind, entry: entry, thread: thread)
  }

  /// ``resolveRegisteredBuilding(_:as:bind:entry:thread:)``, inlined into
  /// a caller that is out of line itself.
  @inlinable @inline(__always)
  func resolveRegisteredBuildingInline<T>(
    _ key: Key,
    as type: T.Type,
    bind: (Any) -> (@Sendable () throws -> T)?,
    entry: SlotTableEntry?,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    if let entry {
      // The caller's published read found nothing to take. An instance
      // published since is found below, past the registration
      // (resolveKnownSlot): a transient, the common case here, is not
      // read for again.
      let known = entry.slot
      let cell = entry.cell
      // This thread knows the slot, so the store knows it as a reader: the
      // registration is read without the lock. The store keeps the slot. A
      // slot made for a registration is in the table with its factory (see
      // slotLocked), so an empty cell here means none was registered. It is
      // read under this build depth's override hazard pointer, which no
      // override holds here (`entry` says none applies) and which the
      // deeper resolutions of a build do not use.
      let hazard = thread.overrideHazard
      guard let box = thread.pointee.beginHeldRead(AnySlot.registrationCell(after: cell), hazard: hazard) else {
        throw notRegistered
      }
      let registered = box.assumingMemoryBound(to: Slot<T>.Registered.self)
      let lifetime = registered.pointee.lifetime
      if !lifetime.isStored, thread.pointee.holdsOverrideAcrossBuild, canBuildRecordingNothing(known, thread: thread) {
        // buildRecordingNothing(_:factory:thread:scopeDepth:) by
        // hand, with the factory run where it is stored: the hazard pointer
        // keeps the registration, and so the factory's context, for the
        // build, which then retains neither. No scope is active, so the
        // frame's scope flag needs no reading.
        thread.pointee.push(known, recordingFrom: nil)
        defer {
          _ = thread.pointee.pop()
          thread.pointee.endHeldRead(hazard: hazard)
        }
        return try Slot<T>.Registered.build(inBox: box)
      }
      // Copied out (a retain of its context): a deep build shares the
      // hazard pointer with every build below it.
      let factory = registered.pointee.factory
      thread.pointee.endHeldRead(hazard: hazard)
      return try resolveKnownSlot(known, lifetime: lifetime, factory: factory, thread: thread)
    }
    if Gates.activeOverrideScopes.value != 0 {
      return try registeredServedInScope(key, as: T.self, thread: thread) {
        try resolveRegisteredLockedForKey(key, as: T.self, bind: bind)
      }
    }
    if isSurelyUnregistered(key, thread: thread) { throw notRegistered }
    return try resolveRegisteredLockedForKey(key, as: T.self, bind: bind)
  }

  /// ``resolveRegisteredLocked(_:as:bind:)``, through the copy made for
  /// ForgeInject's key where the store has that key. Written generic, the
  /// locked path ran every dictionary operation and metadata lookup of
  /// the store's key as generic code: about 5,400 of the 15,200
  /// instructions of a registered type's first resolution. Where `Key` is
  /// known, the test folds away.
  @inlinable @inline(__always)
  func resolveRegisteredLockedForKey<T>(
    _ key: Key,
    as type: T.Type,
    bind: (Any) -> (@Sendable () throws -> T)?
  ) throws -> T {
    if Key.self == ObjectIdentifier.self {
      return try unsafeDowncast(self, to: SlotStore<ObjectIdentifier>.self).resolveRegisteredLockedByType(
        unsafeBitCast(key, to: ObjectIdentifier.self), as: T.self, bind: bind)
    }
    return try resolveRegisteredLocked(key, as: T.self, bind: bind)
  }

  /// While a scope is live somewhere (the published read then leaves
  /// everything to this path), what
  /// ``servedInScope(_:cell:isKept:as:thread:otherwise:)`` serves for a registered
  /// `T` the table holds: the published instance to a task in no scope, or
  /// in one that neither overrides nor reaches it; the instance a scope's
  /// override builds. Else what `otherwise` returns: the locked path
  /// decides. The registration's lifetime is not read, so the read is asked
  /// as a kept one: a transient publishes nothing, and its read finds
  /// nothing to serve.
  @inlinable @inline(__always)
  func registeredServedInScope<T>(
    _ key: Key,
    as type: T.Type,
    thread: UnsafeMutablePointer<ThreadFastState>,
    otherwise missed: () throws -> T
  ) throws -> T {
    guard thread.pointee.recordsNothing,
      let entry = entryPastGates(bits: key.identityBits, as: T.self, comparingType: true, in: thread)
    else { return try missed() }
    return try servedInScope(entry.slot, cell: entry.cell, isKept: true, as: T.self, thread: thread, otherwise: missed)
  }

  /// Whether `key` is surely not registered, known without the lock: no
  /// slot in the table and no registration waiting to become one (and no
  /// scope of the task that may register it for a test, nor a capture in
  /// progress on the thread).
  ///
  /// ```swift
  /// if store.isSurelyUnregistered(key, thread: ResolutionContext.currentFast) { throw notRegistered }
  /// ```
  @inlinable
  package func isSurelyUnregistered(_ key: Key, thread: UnsafeMutablePointer<ThreadFastState>) -> Bool {
    guard unresolvedRegistrationCount.value == 0, Gates.activeOverrideScopes.value == 0,
      !thread.pointee.isCapturing, let bits = key.identityBits
    else { return false }
    // Registered keys are never made up, so no entry reads as none here
    // for a slot that may go (see entryOutlivingSection(_:)).
    return tableEntry(bits: bits, section: thread) == nil
  }

  /// ``resolveRegistered(_:as:bind:)`` for a key this thread does not know yet,
  /// or while overrides are active: under the lock.
  /// Inlined into ``resolveRegisteredLockedByType(_:as:bind:)``, the copy
  /// made for ForgeInject's key.
  @usableFromInline @inline(__always)
  func resolveRegisteredLocked<T>(_ key: Key, as type: T.Type, bind: (Any) -> (@Sendable () throws -> T)?) throws -> T {
    var registered: Slot<T>.Registered?
    var found: AnySlot?
    var released: [Any] = []
    var boxes: [RetiredBox] = []
    defer { release(released, boxes: boxes) }  // after the lock
    try lock.withLock {
      let slot: Slot<T>
      if let existing = slots[key] {
        slot = try typedLocked(existing, for: key)
      } else if let registration = registrations[key] {
        // The first resolution: the record becomes a slot.
        guard let typed = bind(registration.builder) else {
          throw DependencyTypeMismatchError(
            dependency: registration.name.rendered,
            expected: TypeName.of(T.self),
            actual: "a factory of another type",
            chain: ResolutionContext.current.chain
          )
        }
        registrations[key] = nil
        slot = try slotLocked(
          for: key, name: registration.name, released: &released, boxes: &boxes,
          registration: Slot<T>.Registered(factory: typed, lifetime: registration.lifetime))
        // After the slot is in the table: a reader that sees the count
        // drop sees the slot.
        unresolvedRegistrationCount.add(-1)
      } else {
        return
      }
      registered = slot.registered
      found = slot
    }
    guard let registered else {
      // A test's scope may register what the container does not.
      guard Gates.activeOverrideScopes.value > 0,
        OverrideScope.current?.overrideOfTarget(OverrideScope.Target(store: identity, key: key)) != nil
      else {
        throw notRegistered
      }
      return try resolve(key, lifetime: .transient, name: .type(T.self)) { throw NotRegistered() }
    }
    // The slot exists, so its name is rendered only if a message needs it.
    return try resolve(key, lifetime: registered.lifetime, name: found?.nameSource ?? "", factory: registered.factory)
  }

  /// Registers `instance`, built already, for `key`, and keeps it now as
  /// a singleton: every resolution returns it, and it is among the
  /// ``storedInstances()`` from this moment (ForgeInject's eager
  /// `mainActorBuilder`). Replaces an earlier registration and drops what it
  /// built.
  ///
  /// ```swift
  /// try store.registerBuilt(ObjectIdentifier(Observer.self), name: .type(Observer.self), instance: observer)
  /// ```
  package func registerBuilt<T: Sendable>(_ key: Key, name: SlotName, instance: T) throws {
    var released: [Any] = []
    var boxes: [RetiredBox] = []
    try lock.withLock {
      let wasUnresolved = registrations.removeValue(forKey: key) != nil
      if !registeredKeys.contains(key) { registeredKeys.append(key) }  // rare: a linear search is fine
      let existed = slots[key] != nil
      let registered = Slot<T>.Registered(factory: { instance }, lifetime: .singleton)
      // A new slot is published with its factory (see slotLocked).
      let slot: Slot<T> = try slotLocked(
        for: key, name: name, released: &released, boxes: &boxes, registration: registered)
      if wasUnresolved { unresolvedRegistrationCount.add(-1) }
      if existed { retired.retire(slot.publishRegistration(registered), of: slot, kind: .registration) }
      slot.state.invalidate()
      takeStoredLocked(slot, into: &released)
      retired.retire(slot.store(instance, lifetime: .singleton), of: slot, kind: .instance)
      boxes += retired.reclaim()
    }
    release(released, boxes: boxes)
  }

  /// The instances currently kept (built singletons, live weak instances and
  /// the like) for registered keys, in the order the keys were first
  /// registered; inside a scope that isolates the store (a test's), those
  /// kept for the calling task's scopes instead.
  package func storedInstances() -> [Any] {
    // Inside a test that isolates the store, the test's own instances: those
    // of its registrations (overrides) where it made one, otherwise those
    // kept for its scopes.
    guard let isolated = isolatingScopeChain(), let scope = OverrideScope.current else {
      return lock.withLock { registeredKeys.compactMap { slots[$0]?.storedInstance } }
    }
    // Looked up before locking the store: a scope takes its own lock.
    let keys = lock.withLock { registeredKeys }
    let testOverrides = keys.map { key in
      scope.overrideOfTarget(OverrideScope.Target(store: identity, key: key)).map { $0.override.takeUnretainedValue() }
    }
    // The test's registrations of keys the container never registered
    // come after, in the order their instances were kept.
    let registered = Set(keys)
    let testOnly = isolatedOverridesOfCallingTask().filter { override in
      (override.keptSlot.target.key as? Key).map { !registered.contains($0) } ?? false
    }
    return withExtendedLifetime(scope) {
      lock.withLock {
        let listed = zip(keys, testOverrides).compactMap { key, override -> Any? in
          if let override { return override.keptSlot.storedInstance }
          guard let slot = slots[key] else { return nil }
          return isolated.lazy.compactMap { slot.scopeKeptInstance(of: $0) }.first
        }
        let added = testOnly.compactMap { override in
          override.keptSlot.storedInstance.map { (sequence: override.keptSlot.storedSequence, instance: $0) }
        }
        return listed + added.sorted { $0.sequence < $1.sequence }.map(\.instance)
      }
    }
  }

  /// Whether a factory was ever registered for `key`.
  package func isRegistered(_ key: Key) -> Bool {
    lock.withLock { registrations[key] != nil || registeredKeys.contains(key) }
  }

  /// The names of every key with a registered factory, in registration order.
  package func registeredNames() -> [String] {
    lock.withLock {
      registeredKeys.compactMap { key in slots[key]?.name ?? registrations[key]?.name.rendered }
    }
  }
}

/// A builder registered for a key that nothing has resolved yet. The
/// builder travels as `Any` (a closure fits its inline storage), so a
/// registration allocates no slot, cell or counter.
@usableFromInline
struct SlotRegistration {
  @usableFromInline let name: SlotName
  @usableFromInline let lifetime: Lifetime
  /// What the dialect registered, which the `bind` of its resolutions
  /// turns into an `@Sendable () throws -> T` for the slot's type `T`.
  @usableFromInline let builder: Any

  @inlinable
  init(name: SlotName, lifetime: Lifetime, builder: Any) {
    self.name = name
    self.lifetime = lifetime
    self.builder = builder
  }
}

/// Thrown by ``SlotStore/resolveRegistered(_:as:bind:)`` for a key without a
/// registered factory; dialects turn it into their own error.
@usableFromInline package struct NotRegistered: Error {
  @inlinable package init() {}

  /// The error, made once: throwing it again allocates nothing, where
  /// `throw NotRegistered()` boxes a new one each time (a resolution that
  /// misses its key first, such as ForgeInject's of a main-actor type,
  /// throws it on every call).
  @usableFromInline package static let error: any Error & Sendable = NotRegistered()
}

extension SlotStore {
  /// Whether `error` is the ``NotRegistered`` this store throws (its
  /// ``notRegistered``): one comparison of box addresses, where asking the
  /// error's type costs a walk through the runtime's dynamic-type lookup.
  ///
  /// ```swift
  /// if store.isItsNotRegistered(error) || error is NotRegistered { … }
  /// ```
  @inlinable
  package func isItsNotRegistered(_ error: any Error) -> Bool {
    // An `any Error` is one word, its box; `Sendable` adds nothing to it.
    // `as any Error` keeps the existential closed: opened, it would be cast
    // as the error's own type.
    unsafeBitCast(error as any Error, to: UnsafeRawPointer.self)
      == unsafeBitCast(notRegistered as any Error, to: UnsafeRawPointer.self)
  }
}

// ForgeInject's: a store keyed by type identity. In an extension of that
// store alone, so that the compiler makes these for that key and not for
// any key. Made generic, a validation spent about 3,500 instructions per
// registration in generic code (metadata lookups for the tuple and its
// array, unspecialised dictionary reads) just to list them, and a type's
// first resolution about 5,400 on its locked path.
extension SlotStore where Key == ObjectIdentifier {
  /// ``resolveRegisteredLocked(_:as:bind:)`` made for this key: its body,
  /// and that of ``slotLocked(for:name:released:boxes:registration:)``, are
  /// inlined here, where the store's dictionaries have a known key.
  @usableFromInline
  func resolveRegisteredLockedByType<T>(
    _ key: ObjectIdentifier,
    as type: T.Type,
    bind: (Any) -> (@Sendable () throws -> T)?
  ) throws -> T {
    try resolveRegisteredLocked(key, as: T.self, bind: bind)
  }

  /// The types of the registrations named by type (ForgeInject's), in the
  /// order they were first registered.
  package func registeredTypes() -> [Any.Type] {
    registeredKeysAndTypes().map(\.type)
  }

  /// ``registeredTypes()`` with the key each type is registered under.
  package func registeredKeysAndTypes() -> [(key: ObjectIdentifier, type: Any.Type)] {
    lock.withLock {
      registeredKeys.compactMap { key in
        guard case .type(let type)? = slots[key]?.nameSource ?? registrations[key]?.name else { return nil }
        return (key, type)
      }
    }
  }
}
