/// A key a store can find through the calling thread's slot cache, without
/// hashing it.
@usableFromInline package protocol SlotKey: Hashable, Sendable {
  /// The words that identify this key for as long as the store keeps it, or
  /// nil when the key cannot be identified that way.
  var identityBits: SlotKeyBits? { get }
  /// Whether ``SlotKeyBits/second`` tells keys of this type apart; when
  /// it does not (it is the same tag for every key, as for a type's or an
  /// object's identity), lookups do not compare it.
  static var identityUsesSecondWord: Bool { get }
  /// Whether ``SlotKeyBits/third`` is part of the identity; when it is not,
  /// it is 0 and lookups do not compare it.
  static var identityUsesThirdWord: Bool { get }
  /// Whether a key can stop being asked for while its store lives (an
  /// object key whose object is gone); only such stores look for gone keys
  /// to drop.
  static var keysCanGo: Bool { get }
  /// Whether a key can be made up at run time without bound (Forge's
  /// `provide(key: "item-\(id)")`): then a transient's slot stays out of
  /// the lock-free table until its key is asked for a second time (for
  /// good, when its declaration makes keys per argument:
  /// ``declarationSite``), and the store drops such slots once they sit
  /// idle (see ``SlotStore/dropIdleSlotsLocked(into:)``), so a key per
  /// argument costs no memory once it is done with.
  static var keysAreMadeUp: Bool { get }
  /// Where the key was declared, for keys that are made up
  /// (``keysAreMadeUp``): the site of a `provide` call. A site that makes
  /// more than one key makes them per argument (`key: "item-\(id)"`): its
  /// transients' slots never take a table entry, so the store can always
  /// drop them once they sit idle, and its kept ones' entries are marked,
  /// so the store can drop them once a reset has emptied them. Nil when
  /// the key does not say.
  var declarationSite: SlotKeySite? { get }
  /// Whether nothing can ask for this key any more.
  var isGone: Bool { get }
  /// Called by the store whose serial is `storeSerial` for each of its keys
  /// as it goes: a key that caches its slot outside the store (an object
  /// key, ``KeyLife/cache(_:inStore:)``) gives that cache up. Only called
  /// when ``keysCanGo``.
  func storeGoes(serial storeSerial: UInt)
}

extension SlotKey {
  @inlinable
  package static var identityUsesSecondWord: Bool { true }
  @inlinable
  package static var identityUsesThirdWord: Bool { false }
  @inlinable
  package static var keysCanGo: Bool { false }
  @inlinable
  package static var keysAreMadeUp: Bool { false }
  @inlinable
  package var declarationSite: SlotKeySite? { nil }
  @usableFromInline package var isGone: Bool { false }
  @usableFromInline package func storeGoes(serial storeSerial: UInt) {}
}

/// Where a made-up key was declared (``SlotKey/declarationSite``): the
/// declaring file's text address and the line.
///
/// ```swift
/// let site = SlotKeySite(file: UInt(bitPattern: fileID.utf8Start), line: 42)
/// ```
@usableFromInline package struct SlotKeySite: Hashable, Sendable {
  @usableFromInline let file: UInt
  @usableFromInline let line: UInt

  @inlinable
  package init(file: UInt, line: UInt) {
    self.file = file
    self.line = line
  }
}

/// The words that identify a key in its store's ``SlotTable``.
@frozen
@usableFromInline package struct SlotKeyBits: Equatable, Sendable {
  /// Never 0 for a key: an empty table entry's first word is 0, and a
  /// lookup compares this word before it asks whether the entry is empty
  /// (see ``SlotTable/matchInSection(in:for:comparingSecond:comparingThird:cellIsNeverEmpty:holding:)``).
  /// A key type whose natural first word may be 0 flips its bits
  /// (`String`, `Int`).
  @usableFromInline package let first: UInt
  @usableFromInline package let second: UInt
  /// A third word for keys that need one (Forge's: where the declaration
  /// is); 0 for the others.
  @usableFromInline package let third: UInt

  @inlinable
  package init(_ first: UInt, _ second: UInt, _ third: UInt = 0) {
    self.first = first
    self.second = second
    self.third = third
  }

  /// The bits of an object key (a provider, a service): its serial
  /// (``KeyObject/keySerial``), which is never 0.
  @inlinable
  package init(serial: UInt) {
    self.init(serial, 1)
  }
}

extension String: SlotKey {
  /// The string's own representation. A small string's bits are its
  /// contents; a large one's point at its storage, which the store keeps
  /// alive with the key, so the bits cannot come to mean another string.
  /// The first word is flipped: the empty string's is 0, and no string's
  /// is all ones (a small string's UTF-8 never holds the byte 0xFF, a large
  /// one's count is far below 2⁴⁸), so no key's flipped word is 0. For a
  /// literal key the compiler flips it.
  @inline(__always)
  @usableFromInline package var identityBits: SlotKeyBits? {
    guard MemoryLayout<String>.size == 2 * MemoryLayout<UInt>.size else { return nil }
    // A bit cast, not withUnsafeBytes(of:): a pointer to a local makes the
    // compiler guard the caller's whole frame with a stack-protector check,
    // which a Forge hit would pay on every call.
    let words = unsafeBitCast(self, to: (UInt, UInt).self)
    return SlotKeyBits(~words.0, words.1)
  }
}

extension ObjectIdentifier {
  /// A key for `type` that is not `ObjectIdentifier(type)`: the type's
  /// identity with `tag` (1, 2 or 3) in its two low bits, which no type's
  /// identity uses (type metadata is pointer-aligned). A store keyed by
  /// types can keep several slots per type this way (ForgeInject: a type's
  /// async and main-actor registrations beside its synchronous one).
  ///
  /// A key made of a generic wrapper (`ObjectIdentifier(Wrapper<T>.self)`)
  /// would say the same, but each read would ask the runtime for the
  /// wrapper's metadata (about 10 instructions); this is one `or`.
  ///
  /// ```swift
  /// let asyncKey = ObjectIdentifier(Database.self, tag: 1)
  /// ```
  @inlinable @inline(__always)
  package init(_ type: Any.Type, tag: UInt) {
    precondition((1...3).contains(tag), "a type key's tag is 1, 2 or 3")
    let bits = UInt(bitPattern: ObjectIdentifier(type))
    assert(bits & 3 == 0, "type metadata is pointer-aligned")
    self = unsafeBitCast(bits | tag, to: ObjectIdentifier.self)
  }
}

extension ObjectIdentifier: SlotKey {
  @inline(__always)
  @usableFromInline package var identityBits: SlotKeyBits? { SlotKeyBits(UInt(bitPattern: self), 2) }

  /// Always 2.
  @inlinable
  package static var identityUsesSecondWord: Bool { false }
}

extension IdentityKey: SlotKey {
  @inline(__always)
  @usableFromInline package var identityBits: SlotKeyBits? { SlotKeyBits(serial: serial) }

  /// Always 1 (``SlotKeyBits/init(serial:)``).
  @inlinable
  package static var identityUsesSecondWord: Bool { false }

  @inlinable
  package static var keysCanGo: Bool { true }

  @usableFromInline package var isGone: Bool { life.hasEnded }

  @usableFromInline package func storeGoes(serial storeSerial: UInt) { life.uncache(inStore: storeSerial) }
}

extension Int: SlotKey {
  /// The flipped value, so that key 0 has a first word that is not 0;
  /// key -1, whose flipped word would be, has none and takes the locked
  /// path.
  @inline(__always)
  @usableFromInline package var identityBits: SlotKeyBits? {
    self == -1 ? nil : SlotKeyBits(~UInt(bitPattern: self), 3)
  }

  /// Always 3.
  @inlinable
  package static var identityUsesSecondWord: Bool { false }
}
