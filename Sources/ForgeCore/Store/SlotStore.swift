import CForgeAtomics

/// A container's dependencies: one slot per key, the container-wide
/// overrides, and the resolution algorithm every dialect shares.
///
/// `Key` is whatever identifies a dependency cheaply in the dialect: Forge's
/// `#function` string, a type's `ObjectIdentifier`, a provider object's
/// identity.
///
/// Resolution order, first match wins:
/// 1. an override of the current task's ``OverrideScope`` (and instances it
///    helped build),
/// 2. a container-wide override,
/// 3. the factory the caller passes (a dialect picks the preview factory here
///    when it runs in a preview).
///
/// A stored lifetime builds its instance exactly once however many threads
/// ask: the first marks the slot as building under the lock, runs the factory
/// with the lock released (so the factory may resolve other dependencies),
/// and publishes the result under the lock; the others wait. A thread that
/// asks for a slot its own chain is building, or that would wait on a thread
/// waiting for it, has found a cycle and gets a ``DependencyCycleError``.
@usableFromInline package final class SlotStore<Key: SlotKey>: @unchecked Sendable {
  // @unchecked: `slots`, `overrides`, `waiting`, `readers` and `retired`, and
  // every slot's mutable state, are only touched while `lock` is held; the
  // published cells and counters are atomics. The lock serialises every
  // access, so the dynamic exclusivity checks are switched off for them.
  @usableFromInline package let lock = ConditionLock()
  /// Never reused, unlike an address: threads' slot caches key on it.
  @usableFromInline let identityNumber = UInt(Gates.storeIdentities.add(1))
  /// How many container-wide overrides are installed; while any is, reads
  /// take the locked path, which applies them.
  @usableFromInline let overrideCount = AtomicCounter()
  /// Threads that read published boxes without the lock, whose hazard
  /// pointers reclamation must respect.
  @exclusivity(unchecked) private var readers: [ResolutionContext] = []
  @exclusivity(unchecked) private var readerIdentities: Set<ObjectIdentifier> = []
  /// Boxes taken out of their cells that a reader may still hold, with the
  /// slot that knows how to destroy them.
  @exclusivity(unchecked) private var retired: [RetiredBox] = []
  @usableFromInline @exclusivity(unchecked) var slots: [Key: AnySlot] = [:]
  /// Registered factories that nothing has resolved yet (see
  /// ``register(_:name:lifetime:builder:as:bind:)``).
  @usableFromInline @exclusivity(unchecked) var registrations: [Key: SlotRegistration] = [:]
  /// Every registered key, in the order it was first registered.
  @usableFromInline @exclusivity(unchecked) var registeredKeys: [Key] = []
  @exclusivity(unchecked) private var overrides: [Key: AnyOverride] = [:]
  @exclusivity(unchecked) private var waiting: [ObjectIdentifier: (slot: AnySlot, chain: [AnySlot])] = [:]
  /// Keys learned by reading an accessor in capture mode, by the accessor's alias.
  @exclusivity(unchecked) var discoveredKeys: [AnyHashable: Key] = [:]

  package init() {
    // Before any thread can read from this store without the lock.
    forge_fences_setup()
  }

  deinit {
    overrideCount.deallocate()
    // No thread can be reading: it would hold a reference to the store.
    for entry in retired { entry.slot.destroy(entry.box, kind: entry.kind) }
  }

  private var identity: ObjectIdentifier { ObjectIdentifier(self) }

  // MARK: Lock-free reads

  /// The cache entry this thread has for `bits`, when no override can apply
  /// to it and it holds a `T`: the start of every lock-free read.
  @inlinable @inline(__always)
  func knownEntry<T>(
    bits: SlotKeyBits?,
    as type: T.Type,
    in thread: UnsafeMutablePointer<ThreadFastState>
  ) -> ThreadFastState.SlotCacheEntry? {
    guard Gates.activeOverrideScopes.value == 0, overrideCount.value == 0,
      !thread.pointee.isCapturing,
      let bits,
      let entry = thread.pointee.entry(store: identityNumber, bits: bits),
      entry.valueType == ObjectIdentifier(T.self)
    else { return nil }
    return entry
  }

  /// Starts reading the instance published for `bits`, when no override can
  /// apply and no build in progress records what it resolves (so nothing
  /// needs noting): the cheapest hit, for a dialect's entry point
  /// to try before it builds any closure or key. ``PublishedRead/take(_:)``
  /// copies the instance out and ends the read.
  ///
  /// ```swift
  /// if let read = store.beginPublishedRead(bits: bits, as: T.self) {
  ///   return read.take(T.self)
  /// }
  /// ```
  @inlinable @inline(__always)
  package func beginPublishedRead<T>(bits: SlotKeyBits?, as type: T.Type) -> PublishedRead? {
    let thread = ResolutionContext.currentFast
    guard thread.pointee.recordsNothing,
      let entry = knownEntry(bits: bits, as: T.self, in: thread),
      let cell = entry.cell,
      let box = thread.pointee.beginRead(cell)
    else { return nil }
    return PublishedRead(box: box, thread: thread)
  }

  /// What the lock-free path would serve for `bits` on this thread, or nil
  /// when it would take the locked path. For tests and introspection.
  package func published<T>(bits: SlotKeyBits, as type: T.Type) -> T? {
    beginPublishedRead(bits: bits, as: T.self)?.take(T.self)
  }

  /// The set of a thread's slot cache where `bits` of this store are
  /// cached. For tests.
  package func threadCacheSet(of bits: SlotKeyBits) -> Int {
    ThreadFastState.index(store: identityNumber, bits: bits)
  }

  /// Lets the calling thread find `slot` without the lock from now on, unless
  /// it already does. Call with the lock held, after finding `slot` for `key`.
  private func rememberLocked(_ slot: AnySlot, for key: Key, in context: ResolutionContext) {
    guard let bits = key.identityBits,
      context.fast.pointee.entry(store: identityNumber, bits: bits)?.slot?.toOpaque()
        != Unmanaged.passUnretained(slot).toOpaque(),
      let index = slots.index(forKey: key),
      slots.keys[index].identityBits == bits  // the store keeps exactly these bits alive
    else { return }
    if readerIdentities.insert(ObjectIdentifier(context)).inserted {
      readers.append(context)
    }
    context.cacheSlot(slot, store: identityNumber, bits: bits)
  }

  /// Takes retired boxes that no reader holds any more; release them after
  /// unlocking. Call with the lock held.
  func reclaimLocked() -> [RetiredBox] {
    guard !retired.isEmpty else { return [] }
    // A reader publishes its hazard pointer without a fence of its own (see
    // forge_hazard_publish): this one makes every published pointer visible
    // to the scan, or makes the reader see the cell's new value.
    forge_heavy_fence()
    var held: Set<UnsafeMutableRawPointer> = []
    for reader in readers {
      for index in 0..<ThreadFastState.hazardCount {
        if let box = forge_load_seq_cst(reader.hazard + index) { held.insert(box) }
      }
    }
    var free: [RetiredBox] = []
    retired.removeAll { entry in
      if held.contains(entry.box) { return false }
      free.append(entry)
      return true
    }
    return free
  }

  /// Takes `slot`'s stored instance out, retiring its box. Call with the
  /// lock held; release what `released` collects after unlocking.
  func takeStoredLocked(_ slot: AnySlot, into released: inout [Any]) {
    let (instance, box) = slot.takeStored()
    if let instance { released.append(instance) }
    retireLocked(box, of: slot, kind: .instance)
  }

  /// Keeps a box taken out of one of `slot`'s cells until no reader holds
  /// it. Call with the lock held.
  func retireLocked(_ box: UnsafeMutableRawPointer?, of slot: AnySlot, kind: AnySlot.BoxKind) {
    if let box { retired.append(RetiredBox(slot: slot, box: box, kind: kind)) }
  }

  /// Releases what a locked section took out: instances, then boxes no
  /// reader holds. Call without the lock.
  func release(_ released: [Any], boxes: [RetiredBox]) {
    _ = released
    for entry in boxes { entry.slot.destroy(entry.box, kind: entry.kind) }
  }

  // MARK: Resolving

  /// Resolves `key`, building with `factory` when no override applies and no
  /// stored instance exists.
  @inlinable
  package func resolve<T>(
    _ key: Key,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    try resolve(bits: key.identityBits, key: key, lifetime: lifetime, name: name(), factory: factory)
  }

  /// Resolves the key whose identity bits are `bits`, building the key
  /// itself only on the locked path: for object keys, making the key would
  /// retain the shared object on every call.
  ///
  /// Inlinable, so that a dialect's inlinable entry point specialises the
  /// common cases for the caller's `T`: a kept instance this thread knows,
  /// and a build of a known transient that records nothing. Everything else
  /// goes to ``resolveGeneral(bits:key:lifetime:name:factory:known:thread:)``.
  @inlinable
  package func resolve<T>(
    bits: SlotKeyBits?,
    key: @autoclosure () -> Key,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    let thread = ResolutionContext.currentFast
    var known: Unmanaged<AnySlot>?
    if !thread.pointee.isCapturing, let bits,
      let entry = thread.pointee.entry(store: identityNumber, bits: bits),
      entry.valueType == ObjectIdentifier(T.self)
    {
      known = entry.slot
      if let known, thread.pointee.recordsNothing, Gates.activeOverrideScopes.value == 0, overrideCount.value == 0 {
        if lifetime.isStored {
          if let cell = entry.cell, let box = thread.pointee.beginRead(cell) {
            return PublishedRead(box: box, thread: thread).take(T.self)
          }
        } else if canBuildRecordingNothing(known, thread: thread) {
          var usedScopedOverride = false  // no scope is active: stays false
          return try buildRecordingNothing(known, factory: factory, thread: thread, usedScopedOverride: &usedScopedOverride)
        }
      }
    }
    return try resolveGeneral(
      bits: bits,
      key: key(),
      lifetime: lifetime,
      name: name(),
      factory: factory,
      known: known,
      thread: thread
    )
  }

  /// Whether `slot` can be built right now by
  /// ``buildRecordingNothing(_:factory:thread:usedScopedOverride:)``: its dependencies are
  /// recorded already, no build in progress records, and building it closes
  /// no cycle. No override may apply; the caller checks that.
  @inlinable
  func canBuildRecordingNothing(_ slot: Unmanaged<AnySlot>, thread: UnsafeMutablePointer<ThreadFastState>) -> Bool {
    thread.pointee.recordsNothing
      && slot._withUnsafeGuaranteedRef { $0.dependenciesRecorded.value != 0 }
      && thread.pointee.firstFrame(building: slot) == nil
  }

  /// Builds `slot` with `factory` on the calling thread's chain, with a
  /// frame in the thread's raw memory and nothing recorded; the caller (or
  /// the store) keeps the slot. Reports whether the build used a
  /// closure-scoped override.
  @inlinable @inline(__always)
  func buildRecordingNothing<T>(
    _ slot: Unmanaged<AnySlot>,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    usedScopedOverride: inout Bool
  ) throws -> T {
    thread.pointee.push(slot, recordingFrom: nil)
    let value: T
    do {
      value = try factory()
    } catch {
      _ = thread.pointee.pop()
      throw error
    }
    usedScopedOverride = thread.pointee.pop().usedScopedOverride
    return value
  }

  /// ``resolve(bits:key:lifetime:name:factory:)`` for every case, out of
  /// line: `known` is the slot the thread's cache holds for `bits`, if the
  /// front found one.
  @usableFromInline
  func resolveGeneral<T>(
    bits: SlotKeyBits?,
    key: @autoclosure () -> Key,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T,
    known: Unmanaged<AnySlot>?,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    // This thread knows the slot: no lock to find it, no hash of the key.
    if let known {
      // The common cases of an override, Forge's: one that keeps nothing,
      // container-wide or in the task's scope, with nothing to record.
      if canBuildRecordingNothing(known, thread: thread) {
        if Gates.activeOverrideScopes.value == 0 {
          if overrideCount.value > 0, thread.pointee.holdsOverrideAcrossBuild {
            // The override's factory runs while this depth's hazard
            // pointer holds it.
            let overrideHazard = thread.pointee.overrideHazard
            let overrideCell = known._withUnsafeGuaranteedRef { $0.overrideCell }
            if let box = thread.pointee.beginRead(overrideCell, under: overrideHazard) {
              let override = box.load(as: Unmanaged<AnyOverride>.self)
              if buildsEachTime(override, as: T.self) {
                defer { thread.pointee.endRead(under: overrideHazard) }
                return try build(known, with: override, thread: thread)
              }
              thread.pointee.endRead(under: overrideHazard)
            }
          }
        } else if overrideCount.value == 0, let scope = OverrideScope.current,
          let override = known._withUnsafeGuaranteedRef({ scope.entry(for: $0.target) }),
          buildsEachTime(override, as: T.self)
        {
          // `scope`, held for this call, keeps the override.
          thread.pointee.markScopedOverrideUsed()
          return try build(known, with: override, thread: thread)
        }
      }
      return try resolve(known: known, lifetime: lifetime, factory: factory, thread: thread)
    }
    let context = thread.pointee.owner
    if thread.pointee.isCapturing, let placeholder = capture(key(), as: T.self, in: context) {
      return placeholder as! T
    }
    return try resolveLocked(key(), lifetime: lifetime, name: name(), factory: factory, in: context)
  }

  /// Whether `override` builds a `T` every time: it keeps nothing, and its
  /// type is the slot's.
  @inline(__always)
  private func buildsEachTime<T>(_ override: Unmanaged<AnyOverride>, as type: T.Type) -> Bool {
    override._withUnsafeGuaranteedRef { !$0.lifetime.isStored && $0.keptSlot.valueType == ObjectIdentifier(T.self) }
  }

  /// Builds `slot` with the factory of `override`, which the caller holds
  /// and which ``buildsEachTime(_:as:)`` accepted; nothing is recorded.
  @inline(__always)
  private func build<T>(
    _ slot: Unmanaged<AnySlot>,
    with override: Unmanaged<AnyOverride>,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    var usedScopedOverride = false  // the caller marks the scope's use itself
    return try override._withUnsafeGuaranteedRef { override in
      try buildRecordingNothing(
        slot,
        factory: unsafeDowncast(override, to: Override<T>.self).make,
        thread: thread,
        usedScopedOverride: &usedScopedOverride
      )
    }
  }

  /// Resolves `known`, found in the calling thread's cache (so the store
  /// knows the thread as a lock-free reader). The store keeps its slots as
  /// long as it lives, so the slot is used without a retain.
  @usableFromInline
  func resolve<T>(
    known: Unmanaged<AnySlot>,
    lifetime: Lifetime,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    try known._withUnsafeGuaranteedRef { anySlot in
      let slot = unsafeDowncast(anySlot, to: Slot<T>.self)
      if !thread.pointee.recordsNothing { thread.pointee.owner.recordDependency(slot) }
      guard Gates.activeOverrideScopes.value == 0, overrideCount.value == 0 else {
        return try resolveLayers(slot, lifetime: lifetime, factory: factory, thread: thread, isReader: true)
      }
      guard lifetime.isStored else { return try build(slot, factory: factory, thread: thread) }
      if let box = thread.pointee.beginRead(slot.cell) {
        return PublishedRead(box: box, thread: thread).take(T.self)
      }
      return try resolveStored(slot, lifetime: lifetime, factory: factory)
    }
  }

  /// The general path: finds the slot under the lock, lets the calling
  /// thread find it without the lock from then on, and applies every
  /// override layer.
  private func resolveLocked<T>(
    _ key: Key,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T,
    in context: ResolutionContext
  ) throws -> T {
    lock.lock()
    let slot: Slot<T>
    do {
      slot = try slotLocked(for: key, name: .text(name()))
    } catch {
      lock.unlock()
      throw error
    }
    rememberLocked(slot, for: key, in: context)
    lock.unlock()
    context.recordDependency(slot)
    return try resolveLayers(slot, lifetime: lifetime, factory: factory, thread: context.fast)
  }

  /// Resolves `slot` through the override layers: the task's scope, the
  /// container-wide override, then the slot's own instance or `factory`.
  /// A thread the store knows as a lock-free reader (`isReader`) reads kept
  /// instances without the lock.
  private func resolveLayers<T>(
    _ slot: Slot<T>,
    lifetime: Lifetime,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    isReader: Bool = false
  ) throws -> T {
    var containerOverride: AnyOverride?
    if overrideCount.value > 0 {
      if isReader {
        let overrideHazard = thread.pointee.overrideHazard
        if let overrideBox = thread.pointee.beginRead(slot.overrideCell, under: overrideHazard) {
          // The depth's override hazard pointer keeps the override's box,
          // and so the override and its kept slot, alive while the instance
          // hazard pointer reads the instance the override keeps: no
          // reference count is touched.
          let override = overrideBox.load(as: Unmanaged<AnyOverride>.self)
          let keptBox = override._withUnsafeGuaranteedRef { override in
            override.lifetime.isStored && override.keptSlot.valueType == ObjectIdentifier(T.self)
              && Gates.activeOverrideScopes.value == 0
              ? thread.pointee.beginRead(override.keptSlot.cell) : nil
          }
          if let keptBox {
            let value = PublishedRead(box: keptBox, thread: thread).take(T.self)
            thread.pointee.endRead(under: overrideHazard)
            return value
          }
          if Gates.activeOverrideScopes.value == 0, thread.pointee.holdsOverrideAcrossBuild {
            // This depth's own hazard pointer keeps the override alive while
            // its factory runs: deeper resolutions use deeper ones.
            defer { thread.pointee.endRead(under: overrideHazard) }
            return try override._withUnsafeGuaranteedRef { override in
              try resolve(override, slot: slot, thread: thread, isReader: true)
            }
          }
          containerOverride = override.takeUnretainedValue()  // retained by the variable
          thread.pointee.endRead(under: overrideHazard)
        }
      } else {
        lock.lock()
        containerOverride = slot.override
        lock.unlock()
      }
    }
    if Gates.activeOverrideScopes.value > 0, let scope = OverrideScope.current {
      if let entry = scope.entry(for: slot.target) {
        thread.pointee.markScopedOverrideUsed()
        // `scope`, held for this call, keeps the override.
        return try entry._withUnsafeGuaranteedRef { try resolve($0, slot: slot, thread: thread) }
      }
      return try resolve(
        slot,
        notOverriddenIn: scope,
        containerOverride: containerOverride,
        lifetime: lifetime,
        factory: factory,
        thread: thread,
        isReader: isReader
      )
    }
    return try resolve(
      slot,
      containerOverride: containerOverride,
      lifetime: lifetime,
      factory: factory,
      thread: thread,
      isReader: isReader
    )
  }

  /// ``resolveLayers(_:lifetime:factory:thread:isReader:)`` when the task's
  /// scope does not override `slot` itself. Out of line: its cast to `T`
  /// looks `T?`'s metadata up, which no other resolution needs.
  @inline(never)
  private func resolve<T>(
    _ slot: Slot<T>,
    notOverriddenIn scope: OverrideScope,
    containerOverride: AnyOverride?,
    lifetime: Lifetime,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    isReader: Bool
  ) throws -> T {
    if let built = scope.instance(for: slot.target) as? T {
      thread.pointee.markScopedOverrideUsed()
      return built
    }
    if containerOverride == nil, lifetime.isStored, scope.reachesOverride(from: slot) {
      // Kept from before the scope, but built from a dependency the scope
      // replaces: build it again for this scope only.
      thread.pointee.markScopedOverrideUsed()
      let value = try build(slot, factory: factory, thread: thread)
      scope.remember(value, for: slot.target)
      return value
    }
    return try resolve(
      slot,
      containerOverride: containerOverride,
      lifetime: lifetime,
      factory: factory,
      thread: thread,
      isReader: isReader
    )
  }

  /// The layers below a scope: the container-wide override, then the
  /// slot's own instance or `factory`.
  @inline(__always)
  private func resolve<T>(
    _ slot: Slot<T>,
    containerOverride: AnyOverride?,
    lifetime: Lifetime,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    isReader: Bool
  ) throws -> T {
    if let containerOverride {
      return try resolve(containerOverride, slot: slot, thread: thread, isReader: isReader)
    }
    if lifetime.isStored {
      if isReader, let box = thread.pointee.beginRead(slot.cell) {
        return PublishedRead(box: box, thread: thread).take(T.self)
      }
      return try resolveStored(slot, lifetime: lifetime, factory: factory)
    }
    return try build(slot, factory: factory, thread: thread)
  }

  /// Resolves `slot` through `override`. A thread the store knows as a
  /// lock-free reader (`isReader`) reads a kept instance without the lock.
  private func resolve<T>(
    _ override: AnyOverride,
    slot: Slot<T>,
    thread: UnsafeMutablePointer<ThreadFastState>,
    isReader: Bool = false
  ) throws -> T {
    // The kept slot's type is the override's: a cheaper test than a cast.
    guard override.keptSlot.valueType == ObjectIdentifier(T.self) else {
      throw mismatch(slot, actual: "a replacement of another type")
    }
    if override.lifetime.isStored {
      // Holding the override keeps its slot, and so a published box, alive;
      // the store retires boxes only once no reader's hazard pointer holds
      // them. `keptSlot` rather than the typed slot: reading a field of
      // `Override<T>` would look its metadata up.
      if isReader, let box = thread.pointee.beginRead(override.keptSlot.cell) {
        return PublishedRead(box: box, thread: thread).take(T.self)
      }
      let typed = unsafeDowncast(override, to: Override<T>.self)
      return try resolveStored(typed.slot, remembersInScope: false, lifetime: override.lifetime, factory: typed.make)
    }
    return try build(slot, factory: unsafeDowncast(override, to: Override<T>.self).make, thread: thread)
  }

  /// Runs `factory` with `slot` on the calling thread's chain. The first
  /// build of a slot records what it resolved as the slot's dependencies
  /// (the edges of the graph); a kept instance's build always does.
  ///
  /// Returns `T` itself and reports through `usedScopedOverride`: a tuple
  /// result would make unspecialised code look its metadata up every call.
  private func build<T>(
    _ slot: AnySlot,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    alwaysRecord: Bool = false,
    usedScopedOverride: inout Bool
  ) throws -> T {
    if thread.pointee.firstFrame(building: slot) != nil, let path = thread.pointee.owner.cycle(closedBy: slot) {
      throw DependencyCycleError(path: path)
    }
    guard alwaysRecord || slot.dependenciesRecorded.value == 0 else {
      // Nothing to record: the context object is not touched.
      return try buildRecordingNothing(
        .passUnretained(slot),
        factory: factory,
        thread: thread,
        usedScopedOverride: &usedScopedOverride
      )
    }
    let context = thread.pointee.owner
    context.push(slot)
    let value: T
    do {
      value = try factory()
    } catch {
      context.pop()
      throw error
    }
    let outcome = context.pop()
    lock.withLock { slot.dependencies = outcome.dependencies }
    if slot.dependenciesRecorded.value == 0 { slot.dependenciesRecorded.add(1) }
    usedScopedOverride = outcome.usedScopedOverride
    return value
  }

  /// ``build(_:factory:thread:alwaysRecord:usedScopedOverride:)`` for
  /// callers that keep nothing: the scope already knows what it overrode.
  private func build<T>(
    _ slot: AnySlot,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    var usedScopedOverride = false
    return try build(slot, factory: factory, thread: thread, usedScopedOverride: &usedScopedOverride)
  }

  /// Returns the stored instance or builds it exactly once. An override's
  /// own slot passes `remembersInScope: false`: a scope never keeps its
  /// instance.
  private func resolveStored<T>(
    _ slot: Slot<T>,
    remembersInScope: Bool = true,
    lifetime: Lifetime,
    factory: () throws -> T
  ) throws -> T {
    lock.lock()
    if let value = slot.stored() {
      lock.unlock()
      return value
    }
    let context = ResolutionContext.current
    let me = ObjectIdentifier(context)
    while let builder = slot.builder {
      if builder == me {
        lock.unlock()
        throw DependencyCycleError(path: context.cycle(closedBy: slot) ?? [slot.name, slot.name])
      }
      if let path = waitCycle(from: slot, me: me, context: context) {
        lock.unlock()
        throw DependencyCycleError(path: path)
      }
      waiting[me] = (slot, context.buildingSlots)
      lock.wait()
      waiting[me] = nil
      if let value = slot.stored() {
        lock.unlock()
        return value
      }
    }
    slot.builder = me
    let generation = slot.generation
    lock.unlock()

    let value: T
    var usedScopedOverride = false
    do {
      value = try build(
        slot,
        factory: factory,
        thread: context.fast,
        alwaysRecord: true,
        usedScopedOverride: &usedScopedOverride
      )
    } catch {
      lock.withLock {
        slot.builder = nil
        lock.broadcast()
      }
      throw error
    }
    lock.withLock {
      slot.builder = nil
      // A re-registration during the build replaced the factory: the result
      // of the old one is handed to this caller but not kept.
      if !usedScopedOverride, slot.generation == generation {
        slot.store(value, lifetime: lifetime)
      }
      lock.broadcast()
    }
    if usedScopedOverride, remembersInScope, let scope = OverrideScope.current {
      scope.remember(value, for: slot.target)
    }
    return value
  }

  /// The cycle that waiting for `slot` would close across threads: `slot` is
  /// built by a thread that waits (maybe through others) for a slot this
  /// thread is building. Call with the lock held.
  private func waitCycle(from slot: AnySlot, me: ObjectIdentifier, context: ResolutionContext) -> [String]? {
    var segments: [String] = []
    var target = slot
    var hops = 0
    while let owner = target.builder, hops <= waiting.count {
      if owner == me {
        let mine = context.buildingSlots.drop { $0 !== target }.map(\.name)
        return mine + segments + [target.name]
      }
      guard let record = waiting[owner] else { return nil }
      segments += record.chain.drop { $0 !== target }.map(\.name)
      target = record.slot
      hops += 1
    }
    return nil
  }

  func slotLocked<T>(for key: Key, name: @autoclosure () -> SlotName) throws -> Slot<T> {
    if let existing = slots[key] { return try typedLocked(existing, for: key) }
    let slot = Slot<T>(name: name(), target: OverrideScope.Target(store: identity, key: key), storeLock: lock)
    if !overrides.isEmpty, let entry = overrides[key] { _ = slot.publishOverride(entry) }
    slots[key] = slot
    return slot
  }

  /// `slot`, found for `key`, as a slot of `T`; a mismatch when it holds
  /// another type.
  func typedLocked<T>(_ slot: AnySlot, for key: Key) throws -> Slot<T> {
    guard slot.valueType == ObjectIdentifier(T.self) else {
      throw mismatch(slot, expected: String(reflecting: T.self))
    }
    return unsafeDowncast(slot, to: Slot<T>.self)
  }

  private func mismatch(_ slot: AnySlot, expected: String? = nil, actual: String? = nil) -> DependencyTypeMismatchError {
    DependencyTypeMismatchError(
      dependency: slot.name,
      expected: expected ?? slot.valueTypeName,
      actual: actual ?? slot.valueTypeName,
      chain: ResolutionContext.current.chain
    )
  }

  // MARK: Overrides

  /// A replacement for `key` resolved by this store, to install container-wide
  /// with ``setOverride(_:name:lifetime:make:)`` or in an ``OverrideScope``.
  package func makeOverride<T>(
    _ key: Key,
    name: String,
    lifetime: Lifetime = .transient,
    make: @escaping @Sendable () throws -> T
  ) -> Override<T> {
    let target = OverrideScope.Target(store: identity, key: key)
    return Override(name: .text(name), target: target, storeLock: lock, lifetime: lifetime, make: make)
  }

  /// Installs a container-wide replacement for `key`, ahead of the real factory.
  package func setOverride<T>(
    _ key: Key,
    name: String,
    lifetime: Lifetime = .transient,
    make: @escaping @Sendable () throws -> T
  ) {
    let entry = makeOverride(key, name: name, lifetime: lifetime, make: make)
    lock.lock()
    let replaced = overrides.updateValue(entry, forKey: key)
    if replaced == nil { overrideCount.add(1) }
    let boxes = publishOverrideLocked(entry, for: key)
    lock.unlock()
    release([replaced as Any], boxes: boxes)  // outside the lock: a deinit may resolve
  }

  /// Publishes `override` in the slot of `key`, if the slot exists yet, and
  /// takes the boxes no reader holds any more. Call with the lock held.
  private func publishOverrideLocked(_ override: AnyOverride?, for key: Key) -> [RetiredBox] {
    guard let slot = slots[key] else { return reclaimLocked() }
    retireLocked(slot.publishOverride(override), of: slot, kind: .override)
    return reclaimLocked()
  }

  /// Removes the container-wide replacement for `key`, with anything it kept.
  package func removeOverride(_ key: Key) {
    lock.lock()
    let removed = overrides.removeValue(forKey: key)
    var boxes: [RetiredBox] = []
    if removed != nil {
      overrideCount.add(-1)
      boxes = publishOverrideLocked(nil, for: key)
    }
    lock.unlock()
    release([removed as Any], boxes: boxes)
  }

  package func removeAllOverrides() {
    lock.lock()
    let removed = overrides
    for key in overrides.keys {
      if let slot = slots[key] { retireLocked(slot.publishOverride(nil), of: slot, kind: .override) }
    }
    overrideCount.add(-overrides.count)
    overrides.removeAll()
    let boxes = reclaimLocked()
    lock.unlock()
    release([removed], boxes: boxes)
  }

  // MARK: Clearing

  /// Drops every stored instance whose lifetime matches, including those kept
  /// for overrides. Instances are released after the lock is given up, since
  /// a deinit may resolve again.
  package func clearStored(where matches: (Lifetime) -> Bool) {
    clearStored { _, lifetime in matches(lifetime) }
  }

  /// Drops every stored instance whose key and lifetime match, including
  /// those kept for overrides of the key.
  package func clearStored(where matches: (Key, Lifetime) -> Bool) {
    var released: [Any] = []
    let boxes: [RetiredBox] = lock.withLock {
      func clear(_ slot: AnySlot, _ key: Key) {
        if let lifetime = slot.storedLifetime, matches(key, lifetime) {
          takeStoredLocked(slot, into: &released)
        }
      }
      for (key, slot) in slots { clear(slot, key) }
      for (key, entry) in overrides { clear(entry.keptSlot, key) }
      return reclaimLocked()
    }
    release(released, boxes: boxes)
  }
}

/// A box taken out of a slot's cell, kept until no reader's hazard pointer
/// holds it.
struct RetiredBox {
  let slot: AnySlot
  let box: UnsafeMutableRawPointer
  let kind: AnySlot.BoxKind
}

/// A published instance being read under the thread's hazard pointer.
@usableFromInline package struct PublishedRead {
  /// The instance's address.
  @usableFromInline package let box: UnsafeMutableRawPointer
  @usableFromInline let thread: UnsafeMutablePointer<ThreadFastState>

  @inlinable
  init(box: UnsafeMutableRawPointer, thread: UnsafeMutablePointer<ThreadFastState>) {
    self.box = box
    self.thread = thread
  }

  /// Lets go of the instance; call once it is copied out.
  @inlinable
  package func end() { thread.pointee.endRead() }

  /// Copies the instance out as `T` (the slot's type) and lets go of it.
  @inlinable @inline(__always)
  package func take<T>(_ type: T.Type) -> T {
    defer { end() }
    return box.assumingMemoryBound(to: T.self).pointee
  }
}
