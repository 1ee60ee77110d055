/// A slot key that is an object's identity, for dialects whose keys are
/// objects (SwiftPod's providers, DependencyFetcher's services).
///
/// The key holds the object, so the object lives as long as the store that
/// uses it as a key: an address can never be reused by another object and
/// find the first one's slot.
@usableFromInline package struct IdentityKey: Hashable, Sendable {
  @usableFromInline package let object: any AnyObject & Sendable

  @inlinable package init(_ object: any AnyObject & Sendable) { self.object = object }

  @usableFromInline package static func == (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs.object === rhs.object }
  @usableFromInline package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }
}

extension SlotStore where Key == IdentityKey {
  /// Resolves the dependency an object stands for (a provider, a service):
  /// the published read first, from the object's identity; the key, which
  /// retains the object, only on the locked path.
  ///
  /// Callers pass the object's `ObjectIdentifier`, not the object: a generic
  /// object parameter would make them look up its (generic) class metadata,
  /// and an `AnyObject` would retain it, on every call.
  ///
  /// The lifetime is read only on a miss: an object's lifetime never
  /// changes, and only a kept instance is ever published, so a hit needs
  /// neither the lifetime nor a read of the object.
  @inlinable
  package func resolveObject<T>(
    identity: ObjectIdentifier,
    key: @autoclosure () -> IdentityKey,
    lifetime: @autoclosure () -> Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    let bits = SlotKeyBits(identity: identity)
    let thread = ResolutionContext.currentFast
    if let entry = knownEntry(bits: bits, as: T.self, in: thread) {
      if thread.pointee.recordsNothing, let box = thread.pointee.beginRead(entry.cell) {
        return PublishedRead(box: box, thread: thread).take(T.self)
      }
      // Known, with nothing published: a transient, or a kept one not built
      // yet. The entry found here spares the general path a second lookup.
      return try resolveObjectKnown(
        entry.slot, bits: bits, key: key(), lifetime: lifetime(), name: name(), factory: factory, thread: thread)
    }
    return try resolveObjectResolving(bits: bits, key: key(), lifetime: lifetime(), name: name(), factory: factory)
  }

  /// ``resolveObject(identity:key:lifetime:name:factory:)`` for an object
  /// whose instance is always kept (an async dependency's handle): the
  /// published read, else the general path. Kept out of the transient
  /// shortcut, whose extra arguments make an async caller's hit longer.
  ///
  /// ```swift
  /// let handle = try store.resolveKeptObject(
  ///   identity: ObjectIdentifier(provider), key: IdentityKey(provider), lifetime: .singleton, name: provider.name
  /// ) { makeHandle() }
  /// ```
  @inlinable
  package func resolveKeptObject<T>(
    identity: ObjectIdentifier,
    key: @autoclosure () -> IdentityKey,
    lifetime: @autoclosure () -> Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    let bits = SlotKeyBits(identity: identity)
    if let read = beginPublishedRead(bits: bits, as: T.self) { return read.take(T.self) }
    return try resolveObjectResolving(bits: bits, key: key(), lifetime: lifetime(), name: name(), factory: factory)
  }

  /// ``resolveObject(identity:key:lifetime:name:factory:)`` for a slot the
  /// table holds with no override in force and nothing published: a
  /// transient's build recording nothing, without looking the slot up
  /// again; anything else takes the general path. Out of line, so that the
  /// hit stays small.
  @inlinable @inline(never)
  func resolveObjectKnown<T>(
    _ known: Unmanaged<AnySlot>,
    bits: SlotKeyBits,
    key: @autoclosure () -> IdentityKey,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    if !lifetime.isStored, canBuildRecordingNothing(known, thread: thread) {
      var scopeDepth = 0  // no scope applies: stays 0
      return try buildRecordingNothing(known, factory: factory, thread: thread, scopeDepth: &scopeDepth)
    }
    return try resolveGeneral(
      bits: bits, key: key(), lifetime: lifetime, name: name(), factory: factory, known: known, thread: thread)
  }

  /// ``resolveObject(identity:key:lifetime:name:factory:)`` past the
  /// published read, out of line: the hit stays a small function.
  @inlinable @inline(never)
  func resolveObjectResolving<T>(
    bits: SlotKeyBits,
    key: @autoclosure () -> IdentityKey,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    try resolveByBits(bits: bits, key: key(), lifetime: lifetime, name: name(), factory: factory)
  }
}
