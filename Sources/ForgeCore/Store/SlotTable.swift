import CForgeAtomics

/// A store's slots by key bits, for reads without a lock: an open-addressing
/// hash table in raw memory, published through one atomic cell.
///
/// Entries are only ever added, never changed or emptied, so a reader needs
/// no hazard pointer for the table: an entry is written in full before its
/// slot word is published (release), and a reader takes the slot word first
/// (acquire). When the table fills past half, the store publishes a copy
/// (twice the size, or the same size when removed entries made the room)
/// and keeps the old one, whose entries stay valid, until it dies. A lookup
/// costs the same with ten slots or twenty thousand: one hash, usually one
/// probe.
///
/// A removed entry (a key nothing can ask for any more, see
/// ``SlotKey/isGone``) stays where it is, so that probes go on past it, and
/// is marked with a value type of 0; no reader can match it, since its key
/// bits are never asked for again, and the next copy leaves it out.
///
/// ```swift
/// if let entry = SlotTable.entry(in: store.tableCell, for: bits, comparingThird: false),
///   entry.valueTypeBits == UInt(bitPattern: ObjectIdentifier(T.self))
/// {
///   // entry.cell holds the published instance
/// }
/// ```
@usableFromInline package struct SlotTable {
  /// Words before the entries: the shift that turns a hash into an index,
  /// and the mask that wraps a probe.
  @usableFromInline static var headerWords: Int { 2 }
  /// Words per entry: slot (published last), the first two key words, the
  /// value type, the instance cell, and the third key word when the store's
  /// keys use it (last, so that the other words keep their places).
  @inlinable @inline(__always)
  static func entryWords(withThirdWord: Bool) -> Int { withThirdWord ? 6 : 5 }
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
  /// Whether entries hold a third key word.
  private let usesThirdWord: Bool
  private var entryWords: Int { Self.entryWords(withThirdWord: usesThirdWord) }
  /// Tables replaced by larger ones, which readers may still be probing.
  private var retiredTables: [UnsafeMutableRawPointer] = []

  init(usesThirdWord: Bool) {
    self.usesThirdWord = usesThirdWord
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

  /// The entry for `bits`, if the table published in `cell` has one;
  /// `comparingThird` says whether the store's keys use the third word (and
  /// its entries hold it), as the table was made.
  @inlinable @inline(__always)
  package static func entry(
    in cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    for bits: SlotKeyBits,
    comparingThird: Bool
  ) -> SlotTableEntry? {
    guard let table = forge_load_acquire(cell) else { return nil }
    let words = table.assumingMemoryBound(to: UInt.self)
    let mask = words[1]
    var index = Self.hash(bits) &>> words[0]
    while true {
      let entry = words + Self.headerWords + Int(bitPattern: index) &* Self.entryWords(withThirdWord: comparingThird)
      guard
        forge_load_acquire(UnsafeMutableRawPointer(entry).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)) != nil
      else { return nil }
      if entry[1] == bits.first, entry[2] == bits.second, !comparingThird || entry[5] == bits.third {
        return SlotTableEntry(words: entry)
      }
      index = (index &+ 1) & mask
    }
  }

  /// Mixes the first two key words into the high bits, which the shift
  /// keeps. The third word stays out: keys that differ only there (one
  /// Forge key declared in two files) are rare, take the next probe, and
  /// mixing it in spread Forge's entries and slowed hits over thousands of
  /// dependencies.
  @inlinable @inline(__always)
  static func hash(_ bits: SlotKeyBits) -> UInt {
    (bits.first ^ (bits.second &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x9E37_79B9_7F4A_7C15
  }

  /// Whether the next insertion needs a new table.
  var isFull: Bool { (count + 1) * 2 > capacity }

  /// Adds `slot` under `bits`, growing the table first when it is half
  /// full. Call with the store's lock held, once per slot.
  mutating func insert(_ slot: AnySlot, bits: SlotKeyBits) {
    if isFull { grow() }
    guard let table = cell.pointee else { return }
    place(
      slot: Unmanaged.passUnretained(slot).toOpaque(), bits: bits, valueType: slot.valueType, cell: slot.cell, in: table
    )
    count += 1
  }

  /// Marks the entry for `bits` removed: its slot is going. Call with the
  /// store's lock held, only for a key nothing can ask for any more.
  mutating func remove(_ bits: SlotKeyBits) {
    guard let table = cell.pointee else { return }
    let words = table.assumingMemoryBound(to: UInt.self)
    var index = Self.hash(bits) &>> words[0]
    while true {
      let entry = words + Self.headerWords + Int(bitPattern: index) * entryWords
      guard entry[0] != 0 else { return }
      if entry[1] == bits.first, entry[2] == bits.second, !usesThirdWord || entry[5] == bits.third, entry[3] != 0 {
        entry[3] = 0
        removed += 1
        return
      }
      index = (index &+ 1) & words[1]
    }
  }

  private mutating func grow() {
    // Room made by removed entries is reused by a copy of the same size.
    let live = count - removed
    let newCapacity = max(Self.initialCapacity, (live + 1) * 4 <= capacity ? capacity : capacity * 2)
    let words = Self.headerWords + newCapacity * entryWords
    let table = UnsafeMutableRawPointer.allocate(byteCount: words * MemoryLayout<UInt>.size, alignment: 64)
    table.initializeMemory(as: UInt.self, repeating: 0, count: words)
    let header = table.assumingMemoryBound(to: UInt.self)
    header[0] = UInt(UInt.bitWidth - newCapacity.trailingZeroBitCount)
    header[1] = UInt(newCapacity - 1)
    if let old = cell.pointee {
      let oldWords = old.assumingMemoryBound(to: UInt.self)
      for index in 0..<capacity {
        let entry = oldWords + Self.headerWords + index * entryWords
        guard let slot = UnsafeMutableRawPointer(bitPattern: entry[0]), entry[3] != 0 else { continue }
        place(
          slot: slot,
          bits: SlotKeyBits(entry[1], entry[2], usesThirdWord ? entry[5] : 0),
          valueType: unsafeBitCast(entry[3], to: ObjectIdentifier.self),
          cell: UnsafeMutablePointer(bitPattern: entry[4])!,
          in: table
        )
      }
      retiredTables.append(old)
    }
    forge_store_release(cell, table)
    capacity = newCapacity
    count = live
    removed = 0
  }

  /// Writes an entry into `table` (not yet published, or published with
  /// the entry's slot word still empty): the slot word last, with release.
  private func place(
    slot: UnsafeMutableRawPointer,
    bits: SlotKeyBits,
    valueType: ObjectIdentifier,
    cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    in table: UnsafeMutableRawPointer
  ) {
    let words = table.assumingMemoryBound(to: UInt.self)
    var index = Self.hash(bits) &>> words[0]
    var entry = words + Self.headerWords + Int(bitPattern: index) * entryWords
    while entry[0] != 0 {
      index = (index &+ 1) & words[1]
      entry = words + Self.headerWords + Int(bitPattern: index) * entryWords
    }
    entry[1] = bits.first
    entry[2] = bits.second
    entry[3] = UInt(bitPattern: valueType)
    entry[4] = UInt(bitPattern: cell)
    if usesThirdWord { entry[5] = bits.third }
    forge_store_release(UnsafeMutableRawPointer(entry).assumingMemoryBound(to: UnsafeMutableRawPointer?.self), slot)
  }
}

/// One entry of a ``SlotTable``: enough to read a published instance
/// without touching the slot object.
@usableFromInline package struct SlotTableEntry {
  @usableFromInline let words: UnsafeMutablePointer<UInt>

  @inlinable
  init(words: UnsafeMutablePointer<UInt>) { self.words = words }

  /// The slot, which its store keeps as long as it lives.
  @inlinable
  package var slot: Unmanaged<AnySlot> {
    Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: words[0]).unsafelyUnwrapped)
  }

  /// The type of the slot's instances, as an `ObjectIdentifier`'s bits.
  @inlinable
  package var valueTypeBits: UInt { words[3] }

  /// The slot's instance cell.
  @inlinable
  package var cell: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    UnsafeMutablePointer(bitPattern: words[4]).unsafelyUnwrapped
  }
}
