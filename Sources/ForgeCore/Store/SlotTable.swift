import CForgeAtomics

/// A store's slots by key bits, for reads without a lock: an open-addressing
/// hash table in raw memory, published through one atomic cell.
///
/// A reader needs no hazard pointer for an entry: an entry is written in
/// full before its first key word is published (release), and a reader
/// compares that word first (acquire). No key's first word is 0, so an
/// empty entry never matches; an emptied entry (only a store whose keys
/// can go empties entries, see below) keeps the first word of a key that
/// nothing asks for any more. When the table fills past half, the store
/// publishes a copy (twice the size, or the same size when removed entries
/// made the room). A reader probes inside a read section, its thread's
/// read counter odd, and copies the entry out before the section ends
/// (``matchInSection(in:for:comparingSecond:comparingThird:cellIsNeverEmpty:holding:)``),
/// so the store frees the old table once every section open at the copy
/// has ended (``SlotStore/freeReplacedTablesLocked()``). A lookup costs
/// the same with ten slots or twenty thousand: one hash, usually one probe.
///
/// A removed entry (a key nothing can ask for any more, see
/// ``SlotKey/isGone``) is marked with a value type of 0; no reader can
/// match it, since its key bits are never asked for again. It stays where
/// it is while some live key's probe goes past it, and is emptied once
/// none does; a new key takes an emptied or removed entry on its way, and
/// the next copy leaves removed ones out. A store that sees a stream of
/// short-lived keys thus rarely copies its table.
///
/// ```swift
/// let wanted = UInt(bitPattern: ObjectIdentifier(T.self))
/// forge_read_enter(reads)
/// if let match = SlotTable.matchInSection(
///   in: store.tableCell, for: bits, comparingSecond: true, comparingThird: false, holding: .compared(wanted))
/// {
///   let entry = SlotTableEntry(match)  // match.cell holds the published instance, once one is
/// }
/// forge_read_exit(reads)
/// ```
@usableFromInline package struct SlotTable {
  /// Words before the entries: the shift that turns a hash into an index,
  /// and the mask that wraps a probe, then padding to a cache line (a
  /// table is allocated on one), so that an entry of eight words is one
  /// line.
  @usableFromInline static var headerWords: Int { 8 }
  /// Words per entry: slot, the first two key words (the first published
  /// last), the value type, the instance cell, and the third key word when
  /// the store's keys use it (last, so that the other words keep their
  /// places). An entry with a third word is padded to eight words: a
  /// lookup then finds it with one shift (where six words took a shift and
  /// a multiplication by three, an instruction more per hit) and reads one
  /// cache line.
  @inlinable @inline(__always)
  static func entryWords(withThirdWord: Bool) -> Int { withThirdWord ? 8 : 5 }
  static let initialCapacity = 16

  /// The published table: header and entries in one allocation. The
  /// store keeps a copy of the address for its read path.
  let cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  /// How many entries the published table holds; written under the
  /// store's lock.
  private var count = 0
  /// How many of those are removed.
  private var removed = 0
  private var capacity = 0
  /// Whether keys differ in their second word, which the hash then mixes in.
  private let usesSecondWord: Bool
  /// Whether entries hold a third key word.
  private let usesThirdWord: Bool
  /// Whether entries are removed and emptied (the store's keys can go):
  /// then an emptied entry may be written again while a reader that saw it
  /// before is still comparing it, so its first key word is written last
  /// and read with acquire.
  private let emptiesEntries: Bool
  private var entryWords: Int { Self.entryWords(withThirdWord: usesThirdWord) }
  /// Tables replaced by copies, which readers may still be probing, until
  /// the store frees them (``freeReplaced()``).
  private var retiredTables: [UnsafeMutableRawPointer] = []

  init(usesSecondWord: Bool, usesThirdWord: Bool, emptiesEntries: Bool) {
    self.usesSecondWord = usesSecondWord
    self.usesThirdWord = usesThirdWord
    self.emptiesEntries = emptiesEntries
    cell = CacheLines.allocate(UnsafeMutableRawPointer?.self)
    cell.initialize(to: nil)
  }

  /// Frees every table; only when no reader can exist (the store is going).
  mutating func deallocate() {
    if let table = cell.pointee { table.deallocate() }
    for table in retiredTables { table.deallocate() }
    retiredTables.removeAll()
    CacheLines.deallocate(cell)
  }

  /// A table with no entries, which lookups may probe like any other:
  /// what a store's fast table cell holds while its hits must miss (see
  /// `SlotStore.fastTableCell`). Read-only and never freed.
  @inlinable
  package static var closed: UnsafeMutableRawPointer { forge_closed_slot_table_address() }

  /// The entry for `bits`, in place, if the table published in `cell` has
  /// one, for a caller inside a read section (`forge_read_enter`): the
  /// table may be replaced and freed once no section that could have
  /// loaded it is open. Valid only until the section ends: copy what is
  /// needed out first (``SlotTableEntry/init(_:)``); a hit goes on to read
  /// the instance's cell in the same section. `comparingSecond` says
  /// whether the store's keys differ in their second word,
  /// `comparingThird` whether they use the third word (and its entries hold
  /// it), as the table was made. `cellIsNeverEmpty` for a cell that holds
  /// ``closed`` rather than nil: the lookup then does not test for a
  /// table. `valueType`: what the entry's slot must hold.
  @inlinable @inline(__always)
  package static func matchInSection(
    in cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    for bits: SlotKeyBits,
    comparingSecond: Bool,
    comparingThird: Bool,
    cellIsNeverEmpty: Bool = false,
    holding valueType: SlotTableEntry.TypeCheck = .none
  ) -> SlotTableMatch? {
    let loaded = forge_load_acquire(cell)
    guard let table = cellIsNeverEmpty ? loaded.unsafelyUnwrapped : loaded else { return nil }
    let words = table.assumingMemoryBound(to: UInt.self)
    // An index counted in words: with entries of a power of two words,
    // one shift scales it, and a probe steps and wraps it as it is.
    let entryWords = UInt(Self.entryWords(withThirdWord: comparingThird))
    let scalesByShift = entryWords.nonzeroBitCount == 1
    var index = Self.hash(bits, mixingSecond: comparingSecond) &>> words[0]
    if scalesByShift { index &<<= entryWords.trailingZeroBitCount }
    while true {
      let entry = words + Self.headerWords + Int(bitPattern: scalesByShift ? index : index &* entryWords)
      // The first key word is written last, with release (see
      // write(slot:bits:valueType:cell:at:)), and no key's is 0 (see
      // SlotKeyBits/first): read first, with acquire, a match sees the whole
      // entry, and an empty entry (all 0) cannot match. So a hit loads no
      // slot word; only a mismatch asks whether the probe ends here.
      if forge_load_acquire_word(entry + 1) == bits.first, !comparingSecond || entry[2] == bits.second,
        !comparingThird || entry[5] == bits.third
      {
        switch valueType {
        case .none: break
        case .compared(let wanted): guard entry[3] == wanted else { return nil }
        case .asserted(let wanted, let type):
          assert(entry[3] == wanted, "a key whose slots hold only \(type) holds another type's slot")
        }
        return SlotTableMatch(words: entry)
      }
      guard forge_load_acquire(Self.word(entry)) != nil else { return nil }
      // The mask, read only on a collision.
      index =
        scalesByShift
        ? (index &+ entryWords) & (words[1] &<< entryWords.trailingZeroBitCount) : (index &+ 1) & words[1]
    }
  }

  /// An entry's word, for the C atomics.
  @inlinable @inline(__always)
  static func word(_ word: UnsafeMutablePointer<UInt>) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    UnsafeMutableRawPointer(word).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  }

  /// Mixes the first two key words into the high bits, which the shift
  /// keeps; only the first when the store's keys all have the same second
  /// word (`mixingSecond` false: a type's or an object's identity), where
  /// mixing a constant in would cost a hit two instructions and spread
  /// nothing. The third word stays out: keys that differ only there (one
  /// Forge key declared in two files) are rare, take the next probe, and
  /// mixing it in spread Forge's entries and slowed hits over thousands of
  /// dependencies.
  @inlinable @inline(__always)
  static func hash(_ bits: SlotKeyBits, mixingSecond: Bool) -> UInt {
    (mixingSecond ? bits.first ^ (bits.second &* 0xC2B2_AE3D_27D4_EB4F) : bits.first) &* 0x9E37_79B9_7F4A_7C15
  }

  /// Frees the replaced tables; only once no reader can be probing them
  /// (``SlotStore/freeReplacedTablesLocked()``).
  mutating func freeReplaced() {
    for table in retiredTables { table.deallocate() }
    retiredTables.removeAll()
  }

  /// How many replaced tables are kept; for tests.
  var replacedTableCount: Int { retiredTables.count }

  /// Whether the table holds a quarter of what it can before it is copied:
  /// in a store whose keys go, the moment to look for gone ones, while
  /// most of their entries can still be emptied (see ``remove(_:)``).
  var isQuarterFull: Bool { count * 4 >= capacity }

  /// Whether the next insertion needs a new table.
  var isFull: Bool { (count + 1) * 2 > capacity }

  /// Adds `slot` under `bits`, growing the table first when it is half
  /// full. Call with the store's lock held, once per slot, for a key the
  /// table does not hold.
  mutating func insert(_ slot: AnySlot, bits: SlotKeyBits) {
    var free = cell.pointee.map { firstFree(for: bits, in: $0) }
    // A removed entry that takes the key leaves the empty ones as they are.
    if free?.isRemoved != true, isFull {
      grow()
      free = firstFree(for: bits, in: cell.pointee.unsafelyUnwrapped)
    }
    guard let free else { return }
    // A slot the store may drop while readers probe the table (a kept key
    // per argument, see ``SlotTableMatch/slotMayGo``) is marked in its
    // slot word's low bit, which an object's address leaves free.
    let address = Unmanaged.passUnretained(slot).toOpaque()
    write(
      slot: slot.keyPerArgument ? address + 1 : address, bits: bits, valueType: slot.valueType, cell: slot.cell,
      at: free.entry)
    if free.isRemoved { removed -= 1 } else { count += 1 }
  }

  /// The entry at `index` of `table`.
  private func entry(_ index: UInt, in table: UnsafeMutableRawPointer) -> UnsafeMutablePointer<UInt> {
    table.assumingMemoryBound(to: UInt.self) + Self.headerWords + Int(bitPattern: index) * entryWords
  }

  /// The entry at `index` of the published table.
  private func publishedEntry(_ index: UInt) -> UnsafeMutablePointer<UInt> {
    entry(index, in: cell.pointee.unsafelyUnwrapped)
  }

  /// The key bits an entry holds.
  private func bits(of entry: UnsafeMutablePointer<UInt>) -> SlotKeyBits {
    SlotKeyBits(entry[1], entry[2], usesThirdWord ? entry[5] : 0)
  }

  /// The first entry of `table` from `bits`'s place that a new key may
  /// take: an empty one, or, in a table that empties entries, a removed
  /// one (it is written again the same way).
  private func firstFree(
    for bits: SlotKeyBits,
    in table: UnsafeMutableRawPointer
  ) -> (entry: UnsafeMutablePointer<UInt>, isRemoved: Bool) {
    let words = table.assumingMemoryBound(to: UInt.self)
    var index = Self.hash(bits, mixingSecond: usesSecondWord) &>> words[0]
    while true {
      let entry = entry(index, in: table)
      if entry[0] == 0 { return (entry, false) }
      if emptiesEntries, entry[3] == 0 { return (entry, true) }
      index = (index &+ 1) & words[1]
    }
  }

  /// Marks the entry for `bits` removed: its slot is going. Call with the
  /// store's lock held, only for a key nothing can ask for any more.
  ///
  /// A removed entry stays in place while a probe may need to go past it
  /// to a live entry: a key lives at or after its hash's place, before the
  /// first empty entry from there. Removed entries no live key's probe
  /// passes are emptied, so that their room serves new keys without a new
  /// table.
  mutating func remove(_ bits: SlotKeyBits) {
    guard let table = cell.pointee else { return }
    let words = table.assumingMemoryBound(to: UInt.self)
    let mask = words[1]
    var index = Self.hash(bits, mixingSecond: usesSecondWord) &>> words[0]
    while true {
      let found = publishedEntry(index)
      guard found[0] != 0 else { return }
      if found[1] == bits.first, found[2] == bits.second, !usesThirdWord || found[5] == bits.third, found[3] != 0 {
        found[3] = 0
        removed += 1
        break
      }
      index = (index &+ 1) & mask
    }
    // This entry, then the removed ones before it, while no probe needs them.
    while true {
      let candidate = publishedEntry(index)
      guard candidate[0] != 0, candidate[3] == 0, !isPassed(index) else { break }
      forge_store_release(Self.word(candidate), nil)
      count -= 1
      removed -= 1
      index = (index &- 1) & mask
    }
  }

  /// Whether a probe for some live key passes the entry at `index`: a live
  /// entry after it, before the next empty one, whose key's place is at or
  /// before `index`.
  private func isPassed(_ index: UInt) -> Bool {
    guard let table = cell.pointee else { return false }
    let words = table.assumingMemoryBound(to: UInt.self)
    let mask = words[1]
    var position = (index &+ 1) & mask
    while position != index {
      let live = publishedEntry(position)
      guard live[0] != 0 else { break }
      if live[3] != 0 {
        let place = Self.hash(bits(of: live), mixingSecond: usesSecondWord) &>> words[0]
        if (position &- place) & mask >= (position &- index) & mask { return true }
      }
      position = (position &+ 1) & mask
    }
    return false
  }

  private mutating func grow() {
    // Room made by removed entries is reused by a copy of the same size.
    let live = count - removed
    publishCopy(capacity: max(Self.initialCapacity, (live + 1) * 4 <= capacity ? capacity : capacity * 2))
  }

  /// Publishes a copy of the table without the entries of the slots at
  /// `addresses`, which the store is dropping, in a table whose keys can
  /// be asked for again (an entry emptied in place could be matched by a
  /// reader that asks for its key meanwhile, see ``remove(_:)``). Readers
  /// of the old table may still find those slots until it is freed
  /// (``freeReplaced()``); only entries marked ``SlotTableMatch/slotMayGo``
  /// may be dropped so, since no reader takes their slots out of its read
  /// section. Call with the store's lock held.
  ///
  /// The copy is as small as the entries left allow, as a new table of
  /// them would be: no larger than a quarter full when they need less
  /// than the table's room.
  mutating func removeByCopy(slotsAt addresses: Set<UnsafeMutableRawPointer>) {
    guard cell.pointee != nil, !addresses.isEmpty else { return }
    let left = max(0, count - removed - addresses.count)
    var newCapacity = Self.initialCapacity
    while newCapacity < capacity, (left + 1) * 4 > newCapacity { newCapacity *= 2 }
    publishCopy(capacity: newCapacity, leavingOut: addresses)
  }

  /// Publishes a copy of the table with room for `newCapacity` entries,
  /// with every live entry but those of the slots at `addresses`.
  private mutating func publishCopy(capacity newCapacity: Int, leavingOut addresses: Set<UnsafeMutableRawPointer> = [])
  {
    var live = count - removed
    let words = Self.headerWords + newCapacity * entryWords
    let table = UnsafeMutableRawPointer.allocate(byteCount: words * MemoryLayout<UInt>.size, alignment: 64)
    table.initializeMemory(as: UInt.self, repeating: 0, count: words)
    let header = table.assumingMemoryBound(to: UInt.self)
    header[0] = UInt(UInt.bitWidth - newCapacity.trailingZeroBitCount)
    header[1] = UInt(newCapacity - 1)
    if let old = cell.pointee {
      for index in 0..<UInt(capacity) {
        let entry = entry(index, in: old)
        guard let slot = UnsafeMutableRawPointer(bitPattern: entry[0]), entry[3] != 0 else { continue }
        if !addresses.isEmpty, addresses.contains(UnsafeMutableRawPointer(bitPattern: entry[0] & ~1).unsafelyUnwrapped)
        {
          live -= 1
          continue
        }
        let bits = bits(of: entry)
        write(
          slot: slot,
          bits: bits,
          valueType: unsafeBitCast(entry[3], to: ObjectIdentifier.self),
          cell: UnsafeMutablePointer(bitPattern: entry[4])!,
          at: firstFree(for: bits, in: table).entry
        )
      }
      retiredTables.append(old)
    }
    // Sequentially consistent: a refresh of the fast path that its store
    // does not count as running (``SlotStore/freeReplacedTablesLocked()``)
    // reads this table, not the old one.
    _ = forge_exchange_seq_cst(cell, table)
    capacity = newCapacity
    count = live
    removed = 0
  }

  /// Writes an entry at `entry` (in a table not yet published, or an
  /// empty or removed entry of the published one): the slot word, then the
  /// first key word last, each with release. A reader that reads the new
  /// first key word (with acquire) sees the rest of the new entry; one that
  /// reads an empty entry's 0, or the old word of an emptied or removed
  /// entry (a key nothing asks for any more), matches nothing.
  private func write(
    slot: UnsafeMutableRawPointer,
    bits: SlotKeyBits,
    valueType: ObjectIdentifier,
    cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    at entry: UnsafeMutablePointer<UInt>
  ) {
    assert(bits.first != 0, "a key's first word is never 0, an empty entry's")
    entry[2] = bits.second
    entry[3] = UInt(bitPattern: valueType)
    entry[4] = UInt(bitPattern: cell)
    if usesThirdWord { entry[5] = bits.third }
    forge_store_release(Self.word(entry), slot)
    forge_store_release(Self.word(entry + 1), UnsafeMutableRawPointer(bitPattern: bits.first))
  }
}

/// One entry of a ``SlotTable``, copied out of the table inside the read
/// section that found it: enough to read a published instance without
/// touching the slot object, and nothing that reads the table again.
@usableFromInline package struct SlotTableEntry {
  @usableFromInline let slotAddress: UnsafeMutableRawPointer
  @usableFromInline let cellAddress: UnsafeMutablePointer<UnsafeMutableRawPointer?>

  /// The entry `match` found; call inside the read section that found it.
  /// Two words, which a miss passes on in registers.
  @inlinable @inline(__always)
  init(_ match: SlotTableMatch) {
    assert(!match.slotMayGo, "a slot that may go is used only inside the read section that found it")
    slotAddress = UnsafeMutableRawPointer(bitPattern: match.words[0]).unsafelyUnwrapped
    cellAddress = match.cell
  }

  /// The slot, which its store keeps as long as it lives.
  @inlinable
  package var slot: Unmanaged<AnySlot> { Unmanaged.fromOpaque(slotAddress) }

  /// The slot's instance cell.
  @inlinable
  package var cell: UnsafeMutablePointer<UnsafeMutableRawPointer?> { cellAddress }

  /// What a lookup checks of the type an entry's slot holds (an
  /// `ObjectIdentifier`'s bits): nothing, that it is the one wanted, or,
  /// for keys whose slots hold one type by construction, nothing in
  /// release builds and the same in debug ones.
  @usableFromInline package enum TypeCheck {
    case none
    case compared(UInt)
    /// The type's bits, and the type, which a debug build names when the
    /// entry holds another.
    case asserted(UInt, Any.Type)
  }
}

/// An entry of a ``SlotTable`` as a probe found it, in place: valid only
/// inside the read section the probe ran in.
@usableFromInline package struct SlotTableMatch {
  @usableFromInline let words: UnsafeMutablePointer<UInt>

  @inlinable @inline(__always)
  init(words: UnsafeMutablePointer<UInt>) { self.words = words }

  /// The slot's instance cell.
  @inlinable @inline(__always)
  package var cell: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    UnsafeMutablePointer(bitPattern: words[4]).unsafelyUnwrapped
  }

  /// Whether the store may drop the entry's slot while readers probe the
  /// table: a kept key per argument (``AnySlot/keyPerArgument``), which a
  /// reset empties and the store then forgets
  /// (`SlotStore.dropEmptiedKeysPerArgument()`). Such a slot
  /// lives until every read section open at its drop has ended, so a
  /// reader may use it only inside its section: its instance, read there,
  /// but never the slot itself afterwards (``SlotTableEntry``).
  @inlinable @inline(__always)
  package var slotMayGo: Bool { words[0] & 1 != 0 }
}
