/// Where a `provide` is declared, and its scope, in two words: what a kept
/// dependency's hit passes to its miss. The miss then takes the key, the
/// site and the factory in the six registers the calling convention has
/// for them, so the property that calls `provide` sets up no stack
/// arguments on its hit path, and stays small enough for the compiler to
/// inline where the property is read.
///
/// Nil when the site does not fit (a file ID of 65,536 bytes or more, a
/// line past 2³²): that `provide` passes its site as it is. For the
/// literals a property passes, the compiler folds the packing and the
/// test away.
///
/// ```swift
/// if let site = PackedSite(file: fileID, line: line, scope: scope) {
///   return provideMissed(key: name, site: site, factory)
/// }
/// ```
@usableFromInline @frozen
struct PackedSite {
  /// The file ID's first byte (`StaticString.utf8Start`).
  @usableFromInline let file: UInt
  /// The file ID's byte count (16 bits), its flags (8 bits), the scope
  /// (8 bits) and the line (32 bits), from the low bits up.
  @usableFromInline let rest: UInt

  @inlinable @inline(__always)
  init?(file: StaticString, line: UInt, scope: Scope) {
    // StaticString is frozen: a start word, a byte count and a flags byte.
    let words = unsafeBitCast(file, to: (UInt, UInt, UInt8).self)
    guard UInt.bitWidth == 64, words.1 < 1 << 16, line < 1 << 32 else { return nil }
    let scopeBits: UInt =
      switch scope {
      case .transient: 0
      case .singleton: 1
      case .cached: 2
      }
    self.file = words.0
    rest = words.1 | UInt(words.2) << 16 | scopeBits << 24 | line << 32
  }

  /// The declaring file, as `#fileID` gave it.
  @usableFromInline var fileID: StaticString {
    unsafeBitCast((file, rest & 0xFFFF, UInt8(truncatingIfNeeded: rest >> 16)), to: StaticString.self)
  }

  /// The declaring line.
  @usableFromInline var line: UInt { rest >> 32 }

  /// The scope the declaration keeps its instances for.
  @usableFromInline var scope: Scope {
    switch (rest >> 24) & 0xFF {
    case 0: .transient
    case 1: .singleton
    default: .cached
    }
  }
}
