import ForgeCore

/// What identifies a `provide` declaration in its container: its key (the
/// property's name, by default) and the file it is declared in.
///
/// Two modules that both extend `AppContainer` with `var logger` declare two
/// dependencies, not one: their files differ. Two properties of one file
/// that pass the same explicit `key:` share one.
///
/// The file is `#fileID`, a string literal: its address, which the binary
/// keeps for as long as it runs, is the third word of the key's identity
/// bits, so a cached hit compares it without reading the text. Equality and
/// hashing use the text, so two copies of one literal still name one key.
@usableFromInline
struct DeclarationKey: SlotKey, CustomStringConvertible {
  /// The key: the property's name, or what `provide(key:)` was given.
  @usableFromInline let name: String
  /// The declaring file (`#fileID`).
  @usableFromInline let file: StaticString
  /// The declaring line (`#line`), where a failure stops; not part of the
  /// identity, so a key stays one key whichever line resolves it.
  @usableFromInline let line: UInt

  @inlinable
  init(_ name: String, file: StaticString, line: UInt = 0) {
    self.name = name
    self.file = file
    self.line = line
  }

  @inlinable
  static var identityUsesThirdWord: Bool { true }

  /// A `provide(key:)` may make its key from an argument.
  @inlinable
  static var keysAreMadeUp: Bool { true }

  /// The `provide` call's file and line; nil for a key made without a
  /// line (an override's, a validation's), which names no site.
  @usableFromInline
  var declarationSite: SlotKeySite? {
    guard file.hasPointerRepresentation, line != 0 else { return nil }
    return SlotKeySite(file: UInt(bitPattern: file.utf8Start), line: line)
  }

  @inlinable
  var identityBits: SlotKeyBits? {
    guard file.hasPointerRepresentation, let nameBits = name.identityBits else { return nil }
    return SlotKeyBits(nameBits.first, nameBits.second, UInt(bitPattern: file.utf8Start))
  }

  /// Names equal, and files of the same UTF-8: the file's text is read in
  /// place, where making a `String` of it cost each comparison and each
  /// hash about 500 instructions (a store's locked paths hash and compare
  /// keys several times).
  @usableFromInline
  static func == (lhs: DeclarationKey, rhs: DeclarationKey) -> Bool {
    guard lhs.name == rhs.name else { return false }
    if lhs.file.hasPointerRepresentation, rhs.file.hasPointerRepresentation,
      lhs.file.utf8Start == rhs.file.utf8Start
    {
      return lhs.file.utf8CodeUnitCount == rhs.file.utf8CodeUnitCount
    }
    return lhs.file.withUTF8Buffer { left in rhs.file.withUTF8Buffer { right in left.elementsEqual(right) } }
  }

  /// The name, then the length of the file's text: keys ``==(_:_:)``
  /// calls equal have equal names and files of the same text, so equal
  /// hashes. The file's bytes are left out: hashing them cost every locked
  /// lookup about 270 instructions, and keys that share a name and a
  /// file's length but not the file itself are rare (they still compare
  /// unequal).
  @usableFromInline
  func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(file.utf8CodeUnitCount)
  }

  /// The key as messages name it.
  @usableFromInline
  var description: String { name }
}
