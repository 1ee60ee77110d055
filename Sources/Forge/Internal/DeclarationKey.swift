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

  @inlinable
  var identityBits: SlotKeyBits? {
    guard file.hasPointerRepresentation, let nameBits = name.identityBits else { return nil }
    return SlotKeyBits(nameBits.first, nameBits.second, UInt(bitPattern: file.utf8Start))
  }

  @usableFromInline
  static func == (lhs: DeclarationKey, rhs: DeclarationKey) -> Bool {
    lhs.name == rhs.name && lhs.fileText == rhs.fileText
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(fileText)
  }

  private var fileText: String { file.description }

  /// The key as messages name it.
  @usableFromInline
  var description: String { name }
}
