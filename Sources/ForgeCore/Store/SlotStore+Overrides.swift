import CForgeAtomics

/// Container-wide overrides: installed and removed under the lock, and
/// published in the key's slot so that a reader learns of one without the
/// lock or a hash of the key.
extension SlotStore {
  /// A replacement for `key` resolved by this store, to install container-wide
  /// with ``setOverride(_:name:lifetime:make:)`` or in an ``OverrideScope``.
  ///
  /// ```swift
  /// let mock = store.makeOverride("network", name: "network (mock)") { MockNetwork() }
  /// let scope = OverrideScope(parent: OverrideScope.current, entries: [mock.slot.target: mock])
  /// ```
  ///
  /// `parkedRead`, the read that found `key` while it waits for a value
  /// (see ``discoverKey(alias:readAlias:request:location:as:read:)``), gets
  /// the override's first. Until it has one, every read of this store takes
  /// the general path, which hands it over, so that the lock-free fronts
  /// never need to ask. `attachment` stays with the override (see
  /// ``AnyOverride/attachment``).
  package func makeOverride<T>(
    _ key: Key,
    name: String,
    lifetime: Lifetime = .transient,
    parkedRead: ParkedKeyRead? = nil,
    attachment: (any Sendable)? = nil,
    make: @escaping @Sendable () throws -> T
  ) -> Override<T> {
    let target = OverrideScope.Target(store: identity, key: key)
    let override = Override(
      name: .text(name), target: target, storeLock: lock, lifetime: lifetime, parkedRead: parkedRead,
      attachment: attachment, make: make)
    parkedRead?.holdGeneralPath(of: self, for: override)
    return override
  }

  /// Installs a container-wide replacement for `key`, ahead of the real factory.
  ///
  /// ```swift
  /// store.setOverride("network", name: "network") { MockNetwork() }
  /// ```
  package func setOverride<T>(
    _ key: Key,
    name: String,
    lifetime: Lifetime = .transient,
    parkedRead: ParkedKeyRead? = nil,
    make: @escaping @Sendable () throws -> T
  ) {
    installOverride(makeOverride(key, name: name, lifetime: lifetime, parkedRead: parkedRead, make: make), for: key)
  }

  /// Installs `entry`, made by ``makeOverride(_:name:lifetime:make:)`` for
  /// `key`, container-wide, in place of any override of `key` before it.
  ///
  /// ```swift
  /// store.installOverride(store.makeOverride("network", name: "network") { MockNetwork() }, for: "network")
  /// ```
  ///
  /// Inside a scope that isolates this store (a test's, with ForgeTesting),
  /// the override is the test's: it serves that scope's tasks until it is
  /// removed or the test ends.
  package func installOverride(_ entry: AnyOverride, for key: Key) {
    if let isolating = isolatingScope() {
      isolating.addOverride(entry, for: OverrideScope.Target(store: identity, key: key), host: self)
      return
    }
    lock.lock()
    let replaced = overrides.updateValue(entry, forKey: key)
    if replaced == nil { changeOverrideCount(by: 1) }
    let boxes = publishOverrideLocked(entry, for: key)
    lock.unlock()
    release([replaced as Any], boxes: boxes)  // outside the lock: a deinit may resolve
  }

  /// Publishes `override` in the slot of `key`, if the slot exists yet, and
  /// takes the boxes no reader holds any more. Call with the lock held.
  private func publishOverrideLocked(_ override: AnyOverride?, for key: Key) -> [RetiredBox] {
    if let slot = slots[key] { retired.retire(slot.publishOverride(override), of: slot, kind: .override) }
    // What a scope's instances are built from changes with it.
    Gates.edgeEpoch.add(1)
    return retired.reclaim()
  }

  /// Removes the container-wide replacement for `key`, with anything it kept.
  ///
  /// ```swift
  /// store.removeOverride("network")
  /// ```
  ///
  /// Inside a scope that isolates this store, it removes the test's
  /// override of `key` (one it installed, and one it declared), and
  /// nothing else: the key's own factory, or the container's override,
  /// serves the rest of the test.
  package func removeOverride(_ key: Key) {
    if let isolating = isolatingScope() {
      // The test's: one it installed, and one it declared.
      let target = OverrideScope.Target(store: identity, key: key)
      isolating.removeAddedOverrides { $0 == target }
      isolating.removeDeclaredOverride(for: target, host: self)
      return
    }
    lock.lock()
    let removed = overrides.removeValue(forKey: key)
    var boxes: [RetiredBox] = []
    if removed != nil {
      changeOverrideCount(by: -1)
      boxes = publishOverrideLocked(nil, for: key)
    }
    lock.unlock()
    release([removed as Any], boxes: boxes)
  }

  /// Removes every container-wide replacement, with anything they kept;
  /// inside a scope that isolates this store, those the test installed.
  package func removeAllOverrides() {
    if let isolating = isolatingScope() {
      let store = identity
      isolating.removeAddedOverrides { $0.store == store }
      return
    }
    lock.lock()
    let removed = overrides
    for key in overrides.keys {
      if let slot = slots[key] { retired.retire(slot.publishOverride(nil), of: slot, kind: .override) }
    }
    changeOverrideCount(by: -overrides.count)
    overrides.removeAll()
    Gates.edgeEpoch.add(1)
    let boxes = retired.reclaim()
    lock.unlock()
    release([removed], boxes: boxes)
  }
}

extension SlotStore {
  /// The published table while ``overrideCount`` is 0 (once there is
  /// one), else ``SlotTable/closed``: what a hit looks its key up in
  /// (``entryPastGates(bits:as:comparingType:in:)``), so that the one load
  /// tells it both that no override, observer, parked read or shutdown
  /// holds the store on its general path and where the table is. Never
  /// nil, so that a hit does not test for a table. In the override
  /// count's span, on its line.
  @inlinable @inline(__always)
  var fastTableCell: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    UnsafeMutableRawPointer(overrideCount.word + 1).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  }

  /// The store's ``serial`` while ``overrideCount`` is 0, else
  /// ``KeySerial/none``: what an object key's hit compares its cached
  /// slot's store with (``resolveCachedObject(serial:life:as:missed:)``).
  @inlinable @inline(__always)
  var fastSerial: UInt { UInt(bitPattern: forge_counter_load(overrideCount.word + 2)) }

  /// Where ``fastSerial`` lives, for a dialect to keep beside its store:
  /// its hit then reads the serial with one load fewer (the store's
  /// reference). Valid as long as the store lives.
  @inlinable
  package var fastSerialWord: FastSerialWord { FastSerialWord(word: overrideCount.word + 2) }

  /// Where ``fastTableCell`` is, for a dialect to keep beside its store:
  /// a hit that is given it (``publishedValue(bits:as:comparingType:known:fastTable:)``)
  /// finds the table with one load fewer (the store's reference). Valid as
  /// long as the store lives.
  @inlinable
  package var fastTable: FastTableCell { FastTableCell(cell: fastTableCell) }

  /// ``fastSerial`` read from its word (``fastSerialWord``).
  @inlinable @inline(__always)
  static func fastSerial(in word: FastSerialWord) -> UInt { UInt(bitPattern: forge_counter_load(word.word)) }

  /// Whether the fast path's words say what the override count and the
  /// published table say now; for tests, when no change is in progress.
  package var fastPathAgrees: Bool {
    let open = overrideCount.value == 0
    return forge_load_acquire(fastTableCell)
      == (open ? forge_load_acquire(tableCell) ?? SlotTable.closed : SlotTable.closed)
      && fastSerial == (open ? serial : KeySerial.none)
  }

  /// Whether hits may take the fast path (nothing holds the store on its
  /// general path and a table is published); for tests.
  package var fastPathIsOpen: Bool { forge_load_acquire(fastTableCell) != SlotTable.closed && fastSerial == serial }

  /// How many calls of ``refreshFastPath()`` are running: a word of
  /// ``overrideCount``'s line, beside the fast path's words, which every
  /// refresh writes too.
  var refreshesInProgress: AtomicCounter { AtomicCounter(word: overrideCount.word + 3) }

  /// Adds `delta` to ``overrideCount`` and brings the fast path's words
  /// in step with it.
  func changeOverrideCount(by delta: Int) {
    overrideCount.add(delta)
    refreshFastPath()
  }

  /// Writes the fast path's words from the override count and the
  /// published table as they are now. Called after every change to either,
  /// and safe from any thread without a lock: a call that finds either
  /// changed once it has written (one of them a full barrier) writes
  /// again, so whichever call writes last leaves the words right for the
  /// last change. The change itself comes first: between the two, a hit
  /// may still take the fast path, as it could have just before the change.
  func refreshFastPath() {
    // Counted while in progress: a refresh that read a table before it was
    // replaced may still write it into the fast path's cell, so a replaced
    // table is freed only once none is (see freeReplacedTablesLocked()).
    _ = refreshesInProgress.add(1)
    defer { _ = refreshesInProgress.add(-1) }
    while true {
      let count = overrideCount.value
      let table = forge_load_seq_cst(tableCell)
      FastPathTestHook.run()
      forge_word_store_release(overrideCount.word + 2, Int(bitPattern: count == 0 ? serial : KeySerial.none))
      _ = forge_exchange_seq_cst(fastTableCell, count == 0 ? table ?? SlotTable.closed : SlotTable.closed)
      if overrideCount.value == count, forge_load_seq_cst(tableCell) == table { return }
    }
  }
}

/// For tests that make a refresh of the fast path's words late: what
/// ``set(_:)`` installs runs in every refresh between reading what the
/// words stand for and writing them.
package enum FastPathTestHook {
  private static let body = LockedValue<(@Sendable () -> Void)?>(nil)
  /// Nonzero while a body is set: a refresh reads only this word then.
  private static let isSet = AtomicCounter()

  /// Installs `body` (nil removes it), for the whole process.
  package static func set(_ body: (@Sendable () -> Void)?) {
    self.body.current = body
    forge_word_store_release(isSet.word, body == nil ? 0 : 1)
  }

  static func run() {
    guard isSet.value != 0 else { return }
    body.current?()
  }
}

extension SlotStore: AddedOverrideHost {
  package func addedOverrideBegan() { changeOverrideCount(by: 1) }
  package func addedOverrideEnded() { changeOverrideCount(by: -1) }
}

extension SlotStore {
  /// Whether every read of this store takes the general path (an observer
  /// is added, or a key-path read waits for an override's first value),
  /// for tests and diagnostics.
  package var readsTakeGeneralPath: Bool { overrideCount.value >= Self.observerWeight }
}

extension SlotStore: ParkedReadHost {
  // An observer's weight: the fronts' own check sends every read to the
  // general path, as an observer does.
  package func generalPathBegan() { changeOverrideCount(by: Self.observerWeight) }
  package func generalPathEnded() { changeOverrideCount(by: -Self.observerWeight) }
}

/// Where a store keeps its fast path's table (``SlotStore/fastTableCell``),
/// for a dialect to keep beside the store (see ``SlotStore/fastTable``).
@usableFromInline package struct FastTableCell: @unchecked Sendable {
  // @unchecked: the cell is read only with atomic loads, and written only
  // with atomic exchanges (``SlotStore/refreshFastPath()``).
  @usableFromInline let cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>

  @inlinable
  init(cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>) { self.cell = cell }
}

/// Where a store keeps its ``SlotStore/fastSerial``, for a dialect to keep
/// beside the store (see ``SlotStore/fastSerialWord``).
@usableFromInline package struct FastSerialWord: @unchecked Sendable {
  // @unchecked: the word is read only with atomic loads, and written only
  // under its store's lock with atomic stores.
  @usableFromInline let word: UnsafeMutablePointer<Int>

  @inlinable
  init(word: UnsafeMutablePointer<Int>) { self.word = word }
}
