import CForgeAtomics

/// An object that stands for a dependency (a SwiftPod provider, a
/// DependencyFetcher service): a store keys the dependency by the object's
/// ``keySerial`` and learns from its ``keyLife`` when it is gone.
///
/// ```swift
/// final class Provider<T>: KeyObject {
///   package let keySerial = KeySerial.next()
///   package let keyLife = KeyLife.make()
///   deinit { keyLife.end() }
/// }
/// ```
@usableFromInline package protocol KeyObject: AnyObject, Sendable {
  /// A number no other object of the process ever had.
  var keySerial: UInt { get }
  /// Ended by the object's deinit.
  var keyLife: KeyLife { get }
}

/// Numbers for ``KeyObject``s, never handed out twice in a process.
@usableFromInline package enum KeySerial {
  private static let counter = AtomicCounter()

  /// The next number, from 1.
  package static func next() -> UInt { UInt(bitPattern: counter.add(1)) }

  /// A number no store ever has, nor a ``KeyLife``'s cache in any state
  /// (0 when empty, -1, that is `UInt.max`, while a slot is being cached):
  /// what a store's ``SlotStore/fastSerial`` reads while its hits must take
  /// the general path, so that no cached slot matches it.
  @inlinable
  package static var none: UInt { .max - 1 }
}

/// Whether a ``KeyObject`` is still alive: one word, which the object's
/// deinit sets, in an allocation of its own that the stores keying by the
/// object keep. A store holds this rather than the object (which would
/// then live as long as the store) or a weak reference to it (which would
/// give the object a side table, and slow down every retain of it).
///
/// The same allocation caches where one store keeps the object's slot
/// (``cachedSlot(inStore:)``), so that a hit in that store skips the
/// table's hash and probe.
@usableFromInline package struct KeyLife: @unchecked Sendable {
  // @unchecked: the words are only touched through the C atomics, or, for
  // the cached slot's, written before the word that publishes them and
  // read after it.
  /// Words: [0] ended; [1] the serial of the store whose slot the next two
  /// cache (0 while none is cached, -1 while one is being written); [2] the
  /// slot; [3] its instance cell.
  @usableFromInline let buffer: ManagedBuffer<Void, Int>

  private init(buffer: ManagedBuffer<Void, Int>) { self.buffer = buffer }

  /// What word [1] holds while a slot's two words are being written.
  package static let beingCached = -1

  /// A life that has not ended.
  package static func make() -> KeyLife {
    let buffer = ManagedBuffer<Void, Int>.create(minimumCapacity: 4) { _ in }
    buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: 4) }
    return KeyLife(buffer: buffer)
  }

  /// Ends the life; the object calls it from its deinit.
  package func end() { buffer.withUnsafeMutablePointerToElements { _ = forge_counter_add($0, 1) } }

  /// Whether ``end()`` was called.
  package var hasEnded: Bool { buffer.withUnsafeMutablePointerToElements { forge_counter_load($0) != 0 } }

  /// The object's slot in the store whose serial is `storeSerial`
  /// (``SlotStore/serial``), if that is the store whose slot is cached.
  ///
  /// A store drops an object's slot only once the object is gone, and a
  /// store's serial is never reused, so a cached slot is valid for as long
  /// as the object and that store both live: exactly while a resolution of
  /// the object in that store can ask.
  @inlinable @inline(__always)
  package func cachedSlot(inStore storeSerial: UInt) -> CachedSlot? {
    buffer.withUnsafeMutablePointerToElements { words in
      guard forge_counter_load(words + 1) == Int(bitPattern: storeSerial) else { return nil }
      return CachedSlot(slotBits: words[2], cellBits: words[3])
    }
  }

  /// Whether a slot is cached (or being cached), in whichever store.
  @inlinable @inline(__always)
  package var cachesASlot: Bool {
    buffer.withUnsafeMutablePointerToElements { forge_counter_load($0 + 1) != 0 }
  }

  /// Caches `found`, the object's slot in the store whose serial is
  /// `storeSerial`, unless a slot (of this store or another) is cached
  /// already: the store that caches first keeps the cache for as long as
  /// it lives (``uncache(inStore:)``).
  package func cache(_ found: CachedSlot, inStore storeSerial: UInt) {
    buffer.withUnsafeMutablePointerToElements { words in
      // No store's serial, nor ``KeySerial/none``, while the two words
      // are written.
      guard forge_word_compare_exchange(words + 1, 0, Self.beingCached) else { return }
      words[2] = found.slotBits
      words[3] = found.cellBits
      // Published last: a reader that sees this serial sees the two words.
      forge_word_store_release(words + 1, Int(bitPattern: storeSerial))
    }
  }

  /// Gives up the cache if it holds the slot of the store whose serial is
  /// `storeSerial`; that store calls it as it goes, so that the next store
  /// to read the object caches its own slot (a short-lived pod would
  /// otherwise keep every provider it read from using the cache in the
  /// app's pod).
  ///
  /// Only the store named can be giving up the cache, and no read of that
  /// store can be under way: a reader of another store never uses the two
  /// words behind a serial that is not its own, and a store that caches
  /// next writes them before it publishes its serial.
  ///
  /// ```swift
  /// deinit { for key in slots.keys { key.life.uncache(inStore: serial) } }
  /// ```
  package func uncache(inStore storeSerial: UInt) {
    buffer.withUnsafeMutablePointerToElements { words in
      _ = forge_word_compare_exchange(words + 1, Int(bitPattern: storeSerial), 0)
    }
  }
}

/// An object's slot as its ``KeyLife`` caches it: the slot and its instance
/// cell.
@usableFromInline package struct CachedSlot {
  @usableFromInline let slotBits: Int
  @usableFromInline let cellBits: Int

  @inlinable
  init(slotBits: Int, cellBits: Int) {
    self.slotBits = slotBits
    self.cellBits = cellBits
  }

  /// The slot and cell a table entry holds.
  @inlinable
  init(_ entry: SlotTableEntry) {
    self.init(slotBits: Int(bitPattern: entry.slot.toOpaque()), cellBits: Int(bitPattern: entry.cell))
  }

  @inlinable
  package var slot: Unmanaged<AnySlot> {
    Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: slotBits).unsafelyUnwrapped)
  }

  @inlinable
  package var cell: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    UnsafeMutablePointer(bitPattern: cellBits).unsafelyUnwrapped
  }
}

/// Why ``SlotStore/resolveCachedObject(serial:life:as:missed:)`` missed.
@usableFromInline package enum ObjectReadMiss {
  /// An override or a capture applies, or the thread has no state yet:
  /// the general path.
  case general
  /// A gate is raised (it may be raised for other tasks only), or the
  /// object's life caches no slot of this store (the table may hold one):
  /// the read the long way, ``SlotStore/publishedObjectValue(serial:life:as:known:)``.
  case unread
  /// The object's life caches this store's slot, and a build in progress
  /// on this thread records what it reads: the general path, with the slot.
  case cached
  /// The object's life caches this store's slot, which publishes no
  /// instance (a transient's, or one not built yet), and the thread has no
  /// build in progress that records: a transient whose dependencies are
  /// known builds with the slot at once. (Not the slot and the thread's
  /// state as payload: the hit would need a register more, and a frame.)
  case unpublished
  /// The thread may not read lock-free now (``ResolutionContext/fastReader``):
  /// it has no state yet or is capturing (the general path), or a build in
  /// progress on it records what it reads (as ``cached``). Told apart by
  /// the miss, so that the hit tests one flag.
  case skipped
}

/// A slot key that stands for an object, for dialects whose keys are
/// objects (SwiftPod's providers, DependencyFetcher's services).
///
/// The key is the object's serial (``KeyObject/keySerial``), never its
/// address, and it does not keep the object alive, only its
/// ``KeyObject/keyLife``: once the provider is gone its slot can go too
/// (see ``SlotStore``'s `dropGoneKeysLocked`), and a provider made later at
/// the same address has another serial, so it can never find the first
/// one's slot.
@usableFromInline package struct IdentityKey: Hashable, Sendable {
  @usableFromInline package let serial: UInt
  @usableFromInline let life: KeyLife

  @inlinable package init(_ object: some KeyObject) {
    serial = object.keySerial
    life = object.keyLife
  }

  @usableFromInline package static func == (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs.serial == rhs.serial }
  @usableFromInline package func hash(into hasher: inout Hasher) { hasher.combine(serial) }
}

extension SlotStore where Key == IdentityKey {
  /// Resolves the dependency an object stands for (a provider, a service):
  /// the published read first, from the object's serial; the key, which
  /// holds the object's ``KeyObject/keyLife``, only on the locked path.
  ///
  /// Callers pass the object's ``KeyObject/keySerial``, not the object: a
  /// generic object parameter would make them look up its (generic) class
  /// metadata, and an existential would retain it, on every call.
  ///
  /// The lifetime is read only on a miss: an object's lifetime never
  /// changes, and only a kept instance is ever published, so a hit needs
  /// neither the lifetime nor anything of the object but its serial.
  ///
  /// Everything inlined, for a caller that is out of line itself (a
  /// main-actor dependency's handle). A dialect's entry point reads with
  /// ``resolveCachedObject(serial:life:as:missed:)``, whose hit needs no
  /// frame, and calls a miss of its own.
  @inlinable @inline(__always)
  package func resolveObject<T>(
    serial: UInt,
    key: @autoclosure () -> IdentityKey,
    lifetime: @autoclosure () -> Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    var known: SlotTableEntry?
    if let value = publishedValue(bits: SlotKeyBits(serial: serial), as: T.self, known: &known) { return value }
    return try resolveObjectMissed(
      known?.slot, serial: serial, key: key(), lifetime: lifetime(), name: name(), factory: factory)
  }

  /// The instance published for the object whose serial is `serial` and
  /// whose life is `life`: ``SlotStore/publishedValue(bits:as:comparingType:known:fastTable:)`` for
  /// an object key, which finds the slot through the object's cache when
  /// it caches this store's (``KeyLife/cachedSlot(inStore:)``), and
  /// otherwise through the table, caching what it finds there. On a miss,
  /// `known` is the slot, if the read found one.
  ///
  /// A slot's instances never change type, so a cached slot needs no type
  /// check: the table's was made when it was cached.
  ///
  /// The long read of ``resolveCachedObjectMissed(_:serial:life:key:lifetime:name:factory:)``
  /// (a raised gate, or a slot not cached for this store).
  ///
  /// ```swift
  /// var known: Unmanaged<AnySlot>?
  /// if let value = store.publishedObjectValue(serial: provider.keySerial, life: provider.keyLife, as: T.self, known: &known) {
  ///   return value
  /// }
  /// return try store.resolveObjectMissed(
  ///   known, serial: provider.keySerial, key: IdentityKey(provider), lifetime: provider.lifetime,
  ///   name: provider.name) { provider.builder(self) }
  /// ```
  @inlinable @inline(__always)
  package func publishedObjectValue<T>(
    serial: UInt,
    life: KeyLife,
    as type: T.Type,
    known: inout Unmanaged<AnySlot>?
  ) -> T? {
    guard Gates.isClearForThisTask, let thread = ResolutionContext.currentFastIfMade,
      let found = objectSlot(serial: serial, life: life, as: T.self, in: thread)
    else { return nil }
    if thread.pointee.recordsNothing, let read = thread.beginRead(found.cell) {
      return read.take(T.self)
    }
    known = found.slot
    return nil
  }

  /// Resolves the object whose serial is `serial` and whose life is
  /// `life` from the slot its life caches for this store, as
  /// ``publishedObjectValue(serial:life:as:known:)`` does, and calls
  /// `missed` with what it learnt whenever it cannot: no table lookup, and
  /// each miss a jump. The hit copies the instance out in place: keeping
  /// the hazard pointer across the copy's retain costs it two saved
  /// registers, fewer instructions than a jump to a function of its own
  /// that saves them (measured: 4 per hit, 8 where the caller has a frame
  /// anyway).
  ///
  /// ```swift
  /// store.resolveCachedObject(serial: provider.keySerial, life: provider.keyLife, as: T.self) { miss in
  ///   resolveMissed(provider, miss)
  /// }
  /// ```
  ///
  /// `fastSerialWord` is the store's ``fastSerialWord``, where the dialect
  /// keeps it beside the store (one load fewer per hit).
  @inlinable @inline(__always)
  package func resolveCachedObject<T>(
    serial: UInt,
    life: KeyLife,
    as type: T.Type,
    fastSerialWord: FastSerialWord? = nil,
    missed: (ObjectReadMiss) -> T
  ) -> T {
    // The gate word alone, as the engine's other lock-free checks read it:
    // whether a raised gate concerns this task is asked by the miss.
    // The fast serial matches no cached slot while anything holds the
    // store on its general path (see ``fastSerial``).
    let storeSerial = fastSerialWord.map(Self.fastSerial(in:)) ?? fastSerial
    guard Gates.isDown, let found = life.cachedSlot(inStore: storeSerial) else {
      return missed(storeSerial == KeySerial.none ? .general : .unread)
    }
    guard let thread = ResolutionContext.fastReader else { return missed(.skipped) }
    guard let read = thread.beginRead(found.cell) else {
      return missed(.unpublished)
    }
    return read.take(T.self)
  }

  /// What a read of the object whose life is `life` serves while overrides
  /// are installed on the store (``resolveCachedObject(serial:life:as:missed:)``
  /// missed with ``ObjectReadMiss/general``), in its common cases: the
  /// slot's container-wide override, or the published instance of a slot
  /// not overridden, found through the slot the object caches for this
  /// store, without the table; else nil, and the caller goes on with
  /// ``resolveCachedObjectMissed(_:serial:life:key:lifetime:name:factory:)``.
  /// For a dialect's miss of its own, small and out of line, so that an
  /// overridden read sets up none of the general path's closures.
  ///
  /// ```swift
  /// if let value = try store.servedPastObjectOverrides(
  ///   serial: provider.keySerial, life: provider.keyLife, as: T.self)
  /// {
  ///   return value
  /// }
  /// ```
  @inlinable @inline(__always)
  package func servedPastObjectOverrides<T>(serial keySerial: UInt, life: KeyLife, as type: T.Type) throws -> T? {
    // Not while an observer or a parked key read holds the general path.
    let overrides = overrideCount.value
    guard Gates.isDown, Self.onlyOverridesInstalled(overrides),
      let thread = ResolutionContext.fastReader
    else { return nil }
    // A cached slot holds the object's type: it was checked when cached.
    // The object may cache another store's slot: then the table's.
    guard
      let found = life.cachedSlot(inStore: serial)
        ?? typedEntry(bits: SlotKeyBits(serial: keySerial), as: T.self, comparingType: true, section: thread)
        .map(CachedSlot.init)
    else { return nil }
    let slot = found.slot
    if let value = try builtByContainerOverride(slot, as: T.self, overrides: overrides, thread: thread) {
      return value
    }
    // Not overridden: its published instance, if it has one.
    guard slot._withUnsafeGuaranteedRef({ $0.overrideCell.pointee == nil }),
      let read = thread.beginRead(found.cell)
    else { return nil }
    return read.take(T.self)
  }

  /// ``resolveObjectMissed(_:serial:key:lifetime:name:factory:)`` after
  /// ``resolveCachedObject(serial:life:as:missed:)`` missed (`miss` is
  /// what it learnt): an object whose life caches another store's slot, or
  /// none yet, is read from the table first
  /// (``publishedObjectValue(serial:life:as:known:)``).
  ///
  /// ```swift
  /// return try store.resolveCachedObjectMissed(
  ///   miss, serial: provider.keySerial, life: provider.keyLife, key: IdentityKey(provider),
  ///   lifetime: provider.lifetime, name: provider.name) { provider.builder(self) }
  /// ```
  @inlinable @inline(__always)
  package func resolveCachedObjectMissed<T>(
    _ miss: ObjectReadMiss,
    serial: UInt,
    life: KeyLife,
    key: @autoclosure () -> IdentityKey,
    lifetime: @autoclosure () -> Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    func missed(known: Unmanaged<AnySlot>?) throws -> T {
      try resolveObjectMissed(known, serial: serial, key: key(), lifetime: lifetime(), name: name(), factory: factory)
    }
    switch miss {
    case .general:
      return try missed(known: nil)
    case .cached:
      return try missed(known: life.cachedSlot(inStore: self.serial)?.slot)
    case .skipped:
      guard let thread = ResolutionContext.currentFastIfMade, !thread.pointee.isCapturing else {
        return try missed(known: nil)
      }
      return try missed(known: life.cachedSlot(inStore: self.serial)?.slot)
    case .unpublished:
      return try buildUnpublished(life: life, lifetime: lifetime(), factory: factory) {
        try missed(known: life.cachedSlot(inStore: self.serial)?.slot)
      }
    case .unread:
      var known: Unmanaged<AnySlot>?
      if let value = publishedObjectValue(serial: serial, life: life, as: T.self, known: &known) { return value }
      return try missed(known: known)
    }
  }

  /// After ``resolveCachedObject(serial:life:as:missed:)`` missed with
  /// ``ObjectReadMiss/unpublished``: the object's instance, built at once
  /// with the slot its life caches for this store, when no instance of it is
  /// kept (`lifetime`, a transient's) and its dependencies are known; else
  /// what `otherwise` returns, which goes on with
  /// ``resolveCachedObjectMissed(_:serial:life:key:lifetime:name:factory:)``
  /// (with ``ObjectReadMiss/cached``: this was tried). What the hit checked
  /// (the thread records nothing) is not checked again. A dialect may call
  /// it from a small function of its own, ahead of its general miss, so
  /// that a transient's build pays neither that miss's frame nor its
  /// arguments.
  ///
  /// No `T?` on the way: where `T` is not known (a resolution through a
  /// protocol, as a SwiftPod builder's `ProviderResolver`), an optional of
  /// it would look up `Optional<T>`'s metadata on every build, about 320
  /// instructions.
  ///
  /// ```swift
  /// return try store.buildUnpublished(life: provider.keyLife, lifetime: provider.lifetime) {
  ///   provider.builder(self)
  /// } otherwise: {
  ///   resolveMissed(provider, .cached)
  /// }
  /// ```
  @inlinable @inline(__always)
  package func buildUnpublished<T>(
    life: KeyLife,
    lifetime: Lifetime,
    factory: () throws -> T,
    otherwise missed: () throws -> T
  ) throws -> T {
    // The lifetime first, though the build checks it again (the compiler
    // folds the two): a kept object's miss skips the cache lookup.
    guard !lifetime.isStored, let slot = life.cachedSlot(inStore: self.serial)?.slot else { return try missed() }
    return try buildTransientAtOnce(
      slot, lifetime: lifetime, factory: factory, thread: ResolutionContext.currentFast, recordsNothing: true,
      otherwise: missed)
  }

  /// The instance published by the async handle kept for the object whose
  /// serial is `serial` and whose life is `life`, read in place:
  /// ``SlotStore/publishedAsyncValue(bits:as:)`` through the object's
  /// cached slot (``publishedObjectValue(serial:life:as:known:)``).
  ///
  /// ```swift
  /// if let value = store.publishedAsyncObjectValue(serial: provider.keySerial, life: provider.keyLife, as: T.self) {
  ///   return value
  /// }
  /// ```
  @inlinable @inline(__always)
  package func publishedAsyncObjectValue<V: Sendable>(serial: UInt, life: KeyLife, as type: V.Type) -> V? {
    beginPublishedObjectRead(serial: serial, life: life, as: AsyncDependency<V>.self)?.takeAsyncPublished(V.self)
  }

  /// ``SlotStore/beginPublishedRead(bits:as:comparingType:)`` for the object whose serial
  /// is `serial` and whose life is `life`, through its cached slot
  /// (``publishedObjectValue(serial:life:as:known:)``): for reads of a kept
  /// handle in place.
  @inlinable @inline(__always)
  package func beginPublishedObjectRead<T>(serial: UInt, life: KeyLife, as type: T.Type) -> PublishedRead? {
    guard let thread = ResolutionContext.clearFastReader,
      let found = objectSlot(serial: serial, life: life, as: T.self, in: thread),
      let read = thread.beginRead(found.cell)
    else { return nil }
    return read
  }

  /// The slot of the object whose serial is `serial`, holding `T`s, when no
  /// container-wide override can apply and the thread is not capturing:
  /// from the object's cache when it caches this store's slot, else from
  /// the table, caching what it finds there when the object caches none.
  /// The caller checked the gates.
  @inlinable @inline(__always)
  func objectSlot<T>(
    serial: UInt,
    life: KeyLife,
    as type: T.Type,
    in thread: UnsafeMutablePointer<ThreadFastState>
  ) -> CachedSlot? {
    // The fast path's words, as the hit reads them: neither matches
    // anything while an override or observer holds the store on its
    // general path (see ``fastSerial``).
    guard !thread.pointee.isCapturing else { return nil }
    if let cached = life.cachedSlot(inStore: fastSerial) { return cached }
    let bits = SlotKeyBits(serial: serial)
    guard let entry = typedEntry(bits: bits, as: T.self, comparingType: true, in: fastTable, section: thread) else {
      return nil
    }
    let found = CachedSlot(entry)
    if !life.cachesASlot { cacheSlot(found, in: life) }
    return found
  }

  /// Caches `found` in `life` for this store; out of line, as it happens
  /// once per object.
  @usableFromInline @inline(never)
  func cacheSlot(_ found: CachedSlot, in life: KeyLife) {
    life.cache(found, inStore: serial)
  }

  /// ``resolveObject(serial:key:lifetime:name:factory:)`` after
  /// ``publishedObjectValue(serial:life:as:known:)`` (or
  /// ``SlotStore/publishedValue(bits:as:comparingType:known:fastTable:)``) missed: with the slot it
  /// found (a transient's build recording nothing) without a second
  /// lookup, else the general path.
  ///
  /// ```swift
  /// var known: Unmanaged<AnySlot>?
  /// if let value = store.publishedObjectValue(serial: provider.keySerial, life: provider.keyLife, as: T.self, known: &known) {
  ///   return value
  /// }
  /// return try store.resolveObjectMissed(
  ///   known, serial: provider.keySerial, key: IdentityKey(provider), lifetime: provider.lifetime,
  ///   name: provider.name) { provider.builder(self) }
  /// ```
  @inlinable @inline(__always)
  package func resolveObjectMissed<T>(
    _ known: Unmanaged<AnySlot>?,
    serial: UInt,
    key: @autoclosure () -> IdentityKey,
    lifetime: @autoclosure () -> Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    let bits = SlotKeyBits(serial: serial)
    if let known {
      return try resolveObjectKnown(
        known, bits: bits, key: key(), lifetime: lifetime(), name: name(), factory: factory,
        thread: ResolutionContext.currentFast)
    }
    // Inlined: the caller is out of line already.
    return try resolveByBits(bits: bits, key: key(), lifetime: lifetime(), name: .text(name()), factory: factory)
  }

  /// ``resolveObject(serial:key:lifetime:name:factory:)`` for an object
  /// whose instance is always kept (an async dependency's handle): the
  /// published read, else the general path. Kept out of the transient
  /// shortcut, whose extra arguments make an async caller's hit longer.
  ///
  /// ```swift
  /// let handle = try store.resolveKeptObject(
  ///   serial: provider.keySerial, key: IdentityKey(provider), lifetime: .singleton, name: provider.name
  /// ) { makeHandle() }
  /// ```
  @inlinable
  package func resolveKeptObject<T>(
    serial: UInt,
    key: @autoclosure () -> IdentityKey,
    lifetime: @autoclosure () -> Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    let bits = SlotKeyBits(serial: serial)
    if let read = beginPublishedRead(bits: bits, as: T.self, comparingType: true) { return read.take(T.self) }
    return try resolveObjectResolving(bits: bits, key: key(), lifetime: lifetime(), name: name(), factory: factory)
  }

  /// ``resolveObject(serial:key:lifetime:name:factory:)`` for a slot the
  /// table holds with no override in force and nothing published: a
  /// transient's build recording nothing, without looking the slot up
  /// again; anything else takes the general path. Inlined into the
  /// dialect's miss, which is out of line itself.
  @inlinable @inline(__always)
  func resolveObjectKnown<T>(
    _ known: Unmanaged<AnySlot>,
    bits: SlotKeyBits,
    key: @autoclosure () -> IdentityKey,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    try buildTransientAtOnce(known, lifetime: lifetime, factory: factory, thread: thread) {
      try resolveGeneral(
        bits: bits, key: key(), lifetime: lifetime, name: .text(name()), factory: factory, known: known, thread: thread)
    }
  }

  /// ``resolveObject(serial:key:lifetime:name:factory:)`` past the
  /// published read, out of line: the hit stays a small function.
  @inlinable @inline(never)
  func resolveObjectResolving<T>(
    bits: SlotKeyBits,
    key: @autoclosure () -> IdentityKey,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    try resolveByBits(bits: bits, key: key(), lifetime: lifetime, name: .text(name()), factory: factory)
  }
}
