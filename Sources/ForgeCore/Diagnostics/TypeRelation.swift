import CForgeAtomics

/// Whether an instance of one type can be used as another, decided from the
/// types alone, without an instance.
///
/// Failure messages need it: ForgeInject keys registrations by type, so a
/// type registered as `SystemClock` and resolved as `any ClockProtocol` is
/// simply not found. Telling the user "registered as `SystemClock`, which
/// conforms" needs a conformance check between two metatypes.
///
/// Swift has no public API for that when the protocol is a generic
/// parameter (`X.self is T.Type` compares with the protocol's own metatype
/// when `T` is `any P`), so this asks the runtime the question a dynamic
/// cast asks: `swift_conformsToProtocol` (through CForgeAtomics), with the
/// protocols read from the existential's metadata. Both are the runtime's
/// ABI, stable on Apple platforms and laid out the same on Linux. It runs
/// on failure paths only.
package enum TypeRelation {
  /// Whether values of `type` can be used as `target`: `target` is `type`,
  /// a superclass of it, or an existential (`any P`, `any P & Q`) whose
  /// protocols `type` conforms to. An existential with a class bound is
  /// answered for its protocols only.
  package static func isUsable(_ type: Any.Type, as target: Any.Type) -> Bool {
    if type == target || target == Any.self { return true }
    if target == AnyObject.self { return type is AnyObject.Type }
    if let protocols = existentialProtocols(of: target), !protocols.isEmpty {
      let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
      return protocols.allSatisfy { forge_conforms_to_protocol(metadata, $0) != nil }
    }
    // A class: a dynamic cast of the metatype answers.
    func isSubtype<Candidate>(_: Candidate.Type) -> Bool {
      func isTarget<Target>(_: Target.Type) -> Bool { Candidate.self is Target.Type }
      return _openExistential(target, do: isTarget)
    }
    return _openExistential(type, do: isSubtype)
  }

  /// The protocol descriptors of an existential type's metadata, or nil
  /// when `type` is not an existential.
  ///
  /// The layout (swift/ABI/Metadata.h, `TargetExistentialTypeMetadata`):
  /// the kind word, 32 bits of flags, 32 bits of protocol count, the
  /// superclass constraint when the flags say there is one, then one
  /// pointer-sized protocol reference per protocol (Objective-C protocols
  /// have the low bit set; they are left out).
  static func existentialProtocols(of type: Any.Type) -> [UnsafeRawPointer]? {
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    let existentialKind = 0x303  // MetadataKind::Existential
    guard metadata.load(as: UInt.self) == existentialKind else { return nil }
    let flags = metadata.load(fromByteOffset: 8, as: UInt32.self)
    let count = Int(metadata.load(fromByteOffset: 12, as: UInt32.self))
    let hasSuperclass = flags & 0x4000_0000 != 0
    var offset = 16 + (hasSuperclass ? MemoryLayout<UnsafeRawPointer>.size : 0)
    var protocols: [UnsafeRawPointer] = []
    for _ in 0..<count {
      let reference = metadata.load(fromByteOffset: offset, as: UInt.self)
      offset += MemoryLayout<UInt>.size
      guard reference & 1 == 0, let descriptor = UnsafeRawPointer(bitPattern: reference) else { return [] }
      protocols.append(descriptor)
    }
    return protocols
  }
}
