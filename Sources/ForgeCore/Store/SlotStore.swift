import CForgeAtomics

/// A container's dependencies: one slot per key, the container-wide
/// overrides, and the resolution algorithm every dialect shares.
///
/// `Key` is whatever identifies a dependency cheaply in the dialect: Forge's
/// `#function` string, a type's `ObjectIdentifier`, a provider object's
/// identity.
///
/// The store is cut into parts, each in a file of its own:
/// - `SlotStore+ReadPath.swift`: the inlinable fronts every dialect calls,
///   and the lock-free hit;
/// - `SlotStore+Layers.swift`: which layer serves a request (``Layer``) and
///   applying it;
/// - `SlotStore+Building.swift`: running a factory on the thread's chain, and
///   building a kept instance exactly once (``BuildState``, ``WaitForGraph``);
/// - `SlotStore+Overrides.swift`, `SlotStore+Clearing.swift`,
///   `SlotStore+Registration.swift`, `SlotStore+KeyDiscovery.swift`.
///
/// ```swift
/// let store = SlotStore<String>()
/// let thing = try store.resolve("thing", lifetime: .singleton, name: "thing") { Thing() }
/// ```
@usableFromInline package final class SlotStore<Key: SlotKey>: @unchecked Sendable {
  // @unchecked: `slots`, `registrations`, `registeredKeys`, `overrides`,
  // `discoveredKeys` and `retired`, and every slot's mutable state, are only
  // touched while `lock` is held; the published cells and counters are
  // atomics. The lock serialises every access, so the dynamic exclusivity
  // checks are switched off for them.
  @usableFromInline package let lock = ConditionLock()
  /// How many container-wide overrides are installed; while any is, reads
  /// take the path that applies them. Change it only with
  /// ``changeOverrideCount(by:)``, which keeps the fast path's words (the
  /// rest of its span, see ``fastTableCell``) in step.
  @usableFromInline let overrideCount: AtomicCounter
  /// How many entries ``registrations`` holds, readable without the lock:
  /// while it is 0, a key the table lacks has no registration either, and
  /// its resolution fails without the lock. Its word is the first of the
  /// second line of ``overrideCount``'s span, which no hit reads.
  @usableFromInline let unresolvedRegistrationCount: AtomicCounter
  /// Boxes taken out of their cells that a reader may still hold.
  @exclusivity(unchecked) var retired = RetiredBoxes()
  /// The slots by key bits, for reads without the lock.
  @exclusivity(unchecked) var table = SlotTable(
    usesSecondWord: Key.identityUsesSecondWord, usesThirdWord: Key.identityUsesThirdWord,
    emptiesEntries: Key.keysCanGo)
  /// Where ``table`` publishes itself: what the read path starts from.
  @usableFromInline let tableCell: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  // The dictionaries below start as `Dictionary()`, not `[:]`: in this
  // generic class a literal, even an empty one, looks up the metadata of
  // its `(Key, Value)` tuple, about 500 instructions each time a store is
  // made.
  @usableFromInline @exclusivity(unchecked) var slots = [Key: AnySlot]()
  /// The next slot's place in the store's creation order (``AnySlot/serial``).
  @exclusivity(unchecked) var nextSlotSerial = 0
  /// Slots made since the store last looked for gone keys.
  @exclusivity(unchecked) var slotsMadeSinceLook = 0
  /// The keys of slots kept out of the table (``AnySlot/awaitsTable``),
  /// oldest first: where ``dropIdleSlotsLocked(into:)`` looks. A key whose
  /// slot was published or dropped since leaves at the next look.
  @exclusivity(unchecked) var keysAwaitingTable: [Key] = []
  /// How many keys ``keysAwaitingTable`` holds when the store next looks
  /// for idle slots: twice those that stayed last time, and at least 64,
  /// so that a look's cost is spread over as many new slots as it scans.
  @exclusivity(unchecked) var idleLookAt = SlotStore.firstIdleLook
  /// The sites of made-up keys (``SlotKey/declarationSite``) that have
  /// made one key so far, with that key.
  @exclusivity(unchecked) var firstKeyBySite = [SlotKeySite: Key]()
  /// The sites that have made more than one key: they make keys per
  /// argument, whose slots stay out of the table (``AnySlot/keyPerArgument``).
  @exclusivity(unchecked) var perArgumentSites = Set<SlotKeySite>()
  /// How many kept keys per argument the table holds: what
  /// ``dropEmptiedKeysPerArgument()`` may drop after a reset.
  @exclusivity(unchecked) var keptKeysPerArgument = 0
  /// Slots dropped from the table by a copy that readers of the old table
  /// may still be reading inside their read sections: released with the
  /// tables they were in (``freeReplacedTablesLocked()``).
  @exclusivity(unchecked) var slotsLeavingTable: [AnySlot] = []
  static var firstIdleLook: Int { 64 }
  /// Registered factories that nothing has resolved yet (see
  /// ``register(_:name:lifetime:builder:as:bind:)``).
  @usableFromInline @exclusivity(unchecked) var registrations = [Key: SlotRegistration]()
  /// Every registered key, in the order it was first registered.
  @usableFromInline @exclusivity(unchecked) var registeredKeys: [Key] = []
  @exclusivity(unchecked) var overrides = [Key: AnyOverride]()
  /// Keys learned by reading an accessor in capture mode, by the accessor's alias.
  @exclusivity(unchecked) var discoveredKeys = [AnyHashable: Key]()
  /// Observers of this store's resolutions, by token value; guarded by
  /// `lock`. Each one adds ``observerWeight`` to `overrideCount`, which
  /// sends every resolution to the observed path.
  @exclusivity(unchecked) var observers: [Int: ObserverEntry] = [:]
  /// Set by ``shutdown()``; guarded by `lock`. Like an observer, it adds
  /// ``observerWeight`` to `overrideCount`, which sends every resolution to
  /// the path that refuses it.
  @exclusivity(unchecked) var isShutDown = false
  /// How many times ``shutdown()`` found a build in progress and waited
  /// for it; guarded by `lock`. For tests.
  @exclusivity(unchecked) var shutdownWaits = 0
  /// ``NotRegistered/error``, kept here: reading the shared one runs its
  /// lazy initialiser's check on every read (a call into the runtime on
  /// Linux), and a miss reads it when it throws and again when the dialect
  /// recognises it.
  @usableFromInline let notRegistered: any Error & Sendable = NotRegistered.error
  /// A number no other store of the process ever had: a key object's
  /// ``KeyLife`` caches its slot for one store, named by this.
  @usableFromInline package let serial = KeySerial.next()

  package init() {
    tableCell = table.cell
    // The override count, then the fast path's two words, on one line;
    // the count of unresolved registrations starts the span's second line
    // (in a span of its own it cost each store an aligned allocation, about
    // 600 instructions to make and free).
    let span = CacheLines.allocate(Int.self, count: CacheLines.lineWords + 1)
    span.initialize(to: 0)
    UnsafeMutableRawPointer(span + 1).bindMemory(to: UnsafeMutableRawPointer?.self, capacity: 1)
      .initialize(to: SlotTable.closed)
    (span + 2).initialize(to: Int(bitPattern: serial))
    (span + 3).initialize(to: 0)  // refreshesInProgress
    (span + CacheLines.lineWords).initialize(to: 0)
    overrideCount = AtomicCounter(word: span)
    unresolvedRegistrationCount = AtomicCounter(word: span + CacheLines.lineWords)
    // Before any thread can read from this store without the lock.
    forge_fences_setup()
  }

  deinit {
    // An object key may cache its slot here; the next store to read it
    // takes the cache over.
    if Key.keysCanGo {
      for key in slots.keys { key.storeGoes(serial: serial) }
    }
    overrideCount.deallocate()  // and the rest of its span, `unresolvedRegistrationCount` with it
    // No thread can be reading: it would hold a reference to the store.
    retired.destroyAll()
    table.deallocate()
  }

  /// The store as its slots' targets and validation's dependencies name it.
  package var identity: ObjectIdentifier { ObjectIdentifier(self) }

  // MARK: Slots

  /// The slot for `key`, made on first use. Call with the lock held; what
  /// `released` and `boxes` collect (what gone keys kept, see
  /// ``dropGoneKeysLocked(into:boxes:)``) is released after unlocking.
  /// Inlined, so that a caller made for one key type (ForgeInject's
  /// locked path) runs it for that key, not as generic code.
  ///
  /// `publishesAtOnce` false (a transient, in a store whose keys are made
  /// up: ``SlotKey/keysAreMadeUp``) keeps a new slot out of the table until
  /// its key is asked for again, and the store may drop it meanwhile (see
  /// ``dropIdleSlotsLocked(into:)``): a key used once costs nothing once
  /// it is done with; a key used twice reads lock-free from then on,
  /// unless its declaration makes keys per argument
  /// (``noteSiteLocked(of:slot:)``): such a slot never takes an entry,
  /// and goes whenever it sits idle.
  @inline(__always)
  func slotLocked<T>(
    for key: Key,
    name: @autoclosure () -> SlotName,
    released: inout [Any],
    boxes: inout [RetiredBox],
    registration: Slot<T>.Registered? = nil,
    publishesAtOnce: Bool = true
  ) throws -> Slot<T> {
    if let existing = slots[key] {
      if Key.keysAreMadeUp, existing.awaitsTable {
        if existing.keyPerArgument {
          existing.askedSinceLook = true
        } else {
          existing.awaitsTable = false
          publishLocked(existing, for: key)
        }
      }
      return try typedLocked(existing, for: key)
    }
    if Key.keysCanGo {
      // Once the table is a quarter full, while most gone keys' entries
      // can still be emptied; amortised: a look costs the slots there are,
      // and comes after a quarter as many new ones.
      slotsMadeSinceLook += 1
      if table.isFull || (table.isQuarterFull && slotsMadeSinceLook * 4 >= slots.count) {
        slotsMadeSinceLook = 0
        dropGoneKeysLocked(into: &released, boxes: &boxes)
      }
    }
    let awaitsTable = Key.keysAreMadeUp && !publishesAtOnce
    if awaitsTable, keysAwaitingTable.count >= idleLookAt { dropIdleSlotsLocked(into: &released) }
    let slot = Slot<T>(name: name(), target: OverrideScope.Target(store: identity, key: key), storeLock: lock)
    if !overrides.isEmpty, let entry = overrides[key] { _ = slot.publishOverride(entry) }
    // Before the table holds the slot: a reader without the lock that
    // finds a slot made for a registration finds its factory too.
    if let registration { _ = slot.publishRegistration(registration) }
    slot.serial = nextSlotSerial
    nextSlotSerial += 1
    slots[key] = slot
    if awaitsTable {
      slot.awaitsTable = true
      keysAwaitingTable.append(key)
      noteSiteLocked(of: key, slot: slot)
    } else {
      // A kept key per argument is published marked, so that a reset
      // that empties it can drop it (dropEmptiedKeysPerArgument()). An
      // async or main-actor one too: its handle, which the reset takes
      // out, reports to the slot weakly, so a build still running when
      // the slot goes records its edges nowhere, and the key's next read
      // builds in a new slot, as it would in the emptied one.
      if Key.keysAreMadeUp {
        noteSiteLocked(of: key, slot: slot)
        if slot.keyPerArgument { keptKeysPerArgument += 1 }
      }
      publishLocked(slot, for: key)
    }
    return slot
  }

  /// Notes the site of `key`, whose new `slot` a made-up key's
  /// resolution made: once a site has made two different keys, it makes
  /// them per argument (``AnySlot/keyPerArgument``). A transient's such
  /// slot never takes a table entry, so that the store can drop it
  /// whenever it sits idle (``dropIdleSlotsLocked(into:)``), however often
  /// it was asked for; a kept one's entry is marked, so that the store can
  /// drop it once a reset has emptied it
  /// (``dropEmptiedKeysPerArgument()``). A property's key, the only one
  /// its site makes, stays, with what the graph recorded for it; so does a
  /// site's first key published before the site made another. Call with
  /// the lock held.
  func noteSiteLocked(of key: Key, slot: AnySlot) {
    guard let site = key.declarationSite else { return }
    if perArgumentSites.contains(site) {
      slot.keyPerArgument = true
      return
    }
    noteSiteOfFewKeysLocked(site, of: key, slot: slot)
  }

  /// ``noteSiteLocked(of:slot:)`` for a site not known to make keys per
  /// argument yet. Apart, so that the common case does not ask the runtime
  /// for the metadata of an optional key (about 1,000 instructions).
  @inline(never)
  func noteSiteOfFewKeysLocked(_ site: SlotKeySite, of key: Key, slot: AnySlot) {
    guard let first = firstKeyBySite[site] else {
      firstKeyBySite[site] = key
      return
    }
    guard first != key else { return }
    perArgumentSites.insert(site)
    firstKeyBySite[site] = nil
    slot.keyPerArgument = true
    if let firstSlot = slots[first], firstSlot.awaitsTable { firstSlot.keyPerArgument = true }
  }

  /// Gives `slot`, the store's slot for `key`, its table entry, for reads
  /// without the lock. Call with the lock held, once per slot.
  func publishLocked(_ slot: AnySlot, for key: Key) {
    // The bits of the key the store keeps, which stay valid as long as it.
    if let index = slots.index(forKey: key), let bits = slots.keys[index].identityBits {
      let published = tableCell.pointee
      table.insert(slot, bits: bits)
      if tableCell.pointee != published {
        refreshFastPath()
        freeReplacedTablesLocked()
      }
    }
  }

  /// Frees the tables the published one replaced, once no reader can be
  /// probing them: every lock-free probe runs in a read section (see
  /// ``SlotTable``), so once both cells a probe starts from hold the new
  /// table and every section open then has ended, nothing reads the old
  /// ones. A refresh of the fast path that read the old table before the
  /// copy was published could still write it into the fast cell: while one
  /// runs, the tables wait for the next copy. Where the process has no
  /// reclaimer's fence (see ``HazardFences``) they stay until the store
  /// goes, as they did before. Call with the lock held, after
  /// ``refreshFastPath()``.
  func freeReplacedTablesLocked() {
    guard table.replacedTableCount > 0,
      // A read-modify-write: ordered after the refresh's exchange, so that
      // a refresh not counted here starts after the copy was published and
      // reads it.
      refreshesInProgress.add(0) == 0,
      ThreadRecords.waitForOpenReadSections()
    else { return }
    table.freeReplaced()
    // Emptied, unreferenced: their deinit runs no user code.
    slotsLeavingTable.removeAll()
  }

  /// Forgets the kept keys per argument (``AnySlot/keyPerArgument``) that
  /// a reset or a clear has emptied: `provide(.cached, key: "user-\(id)")`
  /// keeps no slot for an id once `resetCached()` has dropped its
  /// instance. Only a slot the store alone holds goes (see
  /// ``dropIdleSlotsLocked(into:)`` for who else may hold one), and only
  /// one whose table entry is marked: readers take such an entry's slot
  /// nowhere past their read section (``SlotTableMatch/slotMayGo``), so the
  /// store publishes a copy of the table without it and releases it once
  /// every section open at the copy has ended. Call without the lock,
  /// after the reset's retired boxes are destroyed (each holds its slot).
  func dropEmptiedKeysPerArgument() {
    lock.withLock {
      guard keptKeysPerArgument > 0 else { return }
      var leaving = Set<UnsafeMutableRawPointer>()
      var leavingKeys: [Key] = []
      var index = slots.startIndex
      while index != slots.endIndex {
        defer { slots.formIndex(after: &index) }
        // Checked in place, never bound to a local: a local would hold a
        // second reference through the uniqueness check (see
        // dropIdleSlotsLocked(into:)).
        guard slots.values[index].keyPerArgument, !slots.values[index].awaitsTable,
          isKnownUniquelyReferenced(&slots.values[index]), slots.values[index].keepsNothingLocked,
          overrides.isEmpty || overrides[slots.keys[index]] == nil
        else { continue }
        // A scope that keeps an instance in a slot holds it.
        assert(!slots.values[index].keepsScopeInstancesLocked, "a slot only the store holds keeps nothing")
        leaving.insert(Unmanaged.passUnretained(slots.values[index]).toOpaque())
        leavingKeys.append(slots.keys[index])
        slotsLeavingTable.append(slots.values[index])
      }
      guard !leaving.isEmpty else { return }
      if leaving.count * 4 >= slots.count {
        // A dictionary keeps its room when entries go: a copy of what is
        // left holds it in as much as that needs.
        slots = slots.filter { _, slot in !leaving.contains(Unmanaged.passUnretained(slot).toOpaque()) }
      } else {
        for key in leavingKeys { slots[key] = nil }
      }
      keptKeysPerArgument -= leaving.count
      table.removeByCopy(slotsAt: leaving)
      refreshFastPath()
      freeReplacedTablesLocked()
      Gates.edgeEpoch.add(1)
    }
  }

  /// Drops the slots kept out of the table (``AnySlot/awaitsTable``) that
  /// sit idle: a transient whose key was made up at run time
  /// (`provide(.transient, key: "item-\(id)")`) and asked for once, or
  /// asked for any number of times when its declaration makes keys per
  /// argument. Its key, asked for again, gets a new slot. Call with the
  /// lock held; release `released` after unlocking.
  ///
  /// A slot goes only when the store holds the only reference to it, so
  /// nothing can be left holding it and expecting the store's: no
  /// lock-free read can find it (it never had a table entry), and every
  /// other holder holds it strongly: a build that is using it (its
  /// resolution's frame), another slot's recorded edge (which a scope's
  /// "reaches an override" walk and the graph follow), a scope that keeps
  /// an instance in it, an override. An async or main-actor dependency's
  /// build refers to its slot weakly, so those slots stay. Memos by
  /// address are made stale with the edge epoch, as for gone keys.
  func dropIdleSlotsLocked(into released: inout [Any]) {
    var waiting: [Key] = []
    var dropped = false
    for key in keysAwaitingTable {
      // Published since: the key leaves the list, and its entry in the
      // dictionary stays as it is (the table's entry uses that key's bits).
      // The slot is read through the dictionary, never bound to a local:
      // a local would hold a second reference through the uniqueness
      // check below, and no slot would ever go.
      guard let index = slots.index(forKey: key), slots.values[index].awaitsTable else { continue }
      // A key per argument asked for since the last look stays for one
      // more: a key in use is not dropped and made again on every look.
      if slots.values[index].askedSinceLook {
        slots.values[index].askedSinceLook = false
        waiting.append(key)
        continue
      }
      // Taken out of the dictionary, so that the check below counts the
      // references others hold.
      var slot = slots.remove(at: index).value
      // Made by a transient's resolution and not asked for since the last
      // look (or once only, when its declaration makes one key: a second
      // read publishes it): it has kept nothing, and a build of it in
      // progress holds it.
      if isKnownUniquelyReferenced(&slot), overrides.isEmpty || overrides[key] == nil, !slot.buildsAsynchronously {
        assert(slot.state.building == nil && !slot.keepsScopeInstancesLocked, "an idle slot keeps nothing")
        released.append(slot)
        dropped = true
      } else {
        slots[key] = slot
        waiting.append(key)
      }
    }
    keysAwaitingTable = waiting
    idleLookAt = max(Self.firstIdleLook, waiting.count * 2)
    if dropped { Gates.edgeEpoch.add(1) }
  }

  /// Drops what the store keeps for keys nothing can ask for any more (a
  /// provider or service that is gone): their slots with the instances
  /// they keep, and their container-wide overrides. Called as the table
  /// fills, so a store that sees a stream of short-lived providers stays
  /// the size of the live ones. Kept: a slot whose build is in progress,
  /// that keeps an instance for an override scope, or whose instance
  /// ``shutdown()`` must still stop (one that adopts ``GracefulShutdown``,
  /// or an async dependency's handle). Call with the lock held; release
  /// `released`, and destroy `boxes`, after unlocking (an instance's
  /// deinit may do anything).
  ///
  /// No reader can hold a dropped slot: a lock-free read finds a slot only
  /// through its key's bits, which come from the live object, and a
  /// serial is never reused.
  func dropGoneKeysLocked(into released: inout [Any], boxes: inout [RetiredBox]) {
    for key in overrides.keys where key.isGone {
      released.append(overrides.removeValue(forKey: key) as Any)
      changeOverrideCount(by: -1)
      if let slot = slots[key] { retired.retire(slot.publishOverride(nil), of: slot, kind: .override) }
    }
    let gone = slots.filter { key, slot in key.isGone && Self.mayDropLocked(slot) }
    for (key, slot) in gone {
      slots[key] = nil
      if let bits = key.identityBits { table.remove(bits) }
      takeStoredLocked(slot, into: &released)
      released.append(slot)
    }
    // A scope remembers what a slot reaches by the slot's address, which a
    // new slot may take.
    if !gone.isEmpty { Gates.edgeEpoch.add(1) }
    boxes += retired.reclaim()
  }

  /// Whether dropping `slot` loses nothing anyone can still reach: see
  /// ``dropGoneKeysLocked(into:boxes:)``. Call with the lock held.
  private static func mayDropLocked(_ slot: AnySlot) -> Bool {
    guard slot.state.building == nil, !slot.keepsScopeInstancesLocked else { return false }
    guard let instance = slot.storedInstance else { return true }
    return !(instance is any GracefulShutdown) && !(instance is any AsyncKeptInstance)
  }

  /// How many slots the store holds; for tests.
  package var slotCount: Int { lock.withLock { slots.count } }

  /// How many container-wide overrides the store holds; for tests.
  package var installedOverrideCount: Int { lock.withLock { overrides.count } }

  /// How many replaced slot tables the store keeps; for tests.
  package var replacedTableCount: Int { lock.withLock { table.replacedTableCount } }

  /// How many times a shutdown found a build in progress and waited for
  /// it; for tests.
  package var shutdownWaitCount: Int { lock.withLock { shutdownWaits } }

  /// `slot`, found for `key`, as a slot of `T`; a mismatch when it holds
  /// another type.
  func typedLocked<T>(_ slot: AnySlot, for key: Key) throws -> Slot<T> {
    guard slot.valueType == ObjectIdentifier(T.self) else {
      throw mismatch(slot, expected: TypeName.of(T.self))
    }
    return unsafeDowncast(slot, to: Slot<T>.self)
  }

  func mismatch(_ slot: AnySlot, expected: String? = nil, actual: String? = nil) -> DependencyTypeMismatchError {
    DependencyTypeMismatchError(
      dependency: slot.name,
      expected: expected ?? slot.valueTypeName,
      actual: actual ?? slot.valueTypeName,
      chain: ResolutionContext.current.chain
    )
  }

  // MARK: Retiring and releasing

  /// Takes `slot`'s stored instance out, retiring its box. Call with the
  /// lock held; release what `released` collects after unlocking.
  func takeStoredLocked(_ slot: AnySlot, into released: inout [Any]) {
    let (instance, box) = slot.takeStored()
    if let instance { released.append(instance) }
    retired.retire(box, of: slot, kind: .instance)
  }

  /// Releases what a locked section took out: instances, then boxes no
  /// reader holds. Call without the lock: a deinit may resolve again.
  func release(_ released: [Any], boxes: [RetiredBox]) {
    _ = released
    RetiredBox.destroy(boxes)
  }
}
