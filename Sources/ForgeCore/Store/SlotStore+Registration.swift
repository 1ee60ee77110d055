/// Dialects that register a factory before anything resolves it
/// (ForgeInject): the factory and its lifetime live in the slot.
extension SlotStore {
  /// Registers `factory` for `key`, replacing an earlier registration and
  /// dropping the instance the earlier one built.
  package func register<T>(
    _ key: Key,
    name: @autoclosure () -> String,
    lifetime: Lifetime,
    factory: @escaping @Sendable () throws -> T
  ) throws {
    var released: [Any] = []
    let boxes: [UnsafeMutableRawPointer] = try lock.withLock {
      let slot: Slot<T> = try slotLocked(for: key, name: name())
      slot.factory = factory
      slot.registeredLifetime = lifetime
      slot.generation &+= 1
      takeStoredLocked(slot, into: &released)
      return reclaimLocked()
    }
    release(released, boxes: boxes)
  }

  /// Resolves `key` with its registered factory; nil when nothing is
  /// registered for it (overrides still apply to registered keys only).
  package func resolveRegistered<T>(_ key: Key, as type: T.Type = T.self) throws -> T? {
    if let bits = key.identityBits, let value = published(bits: bits, as: T.self) { return value }
    let registration: (factory: @Sendable () throws -> T, lifetime: Lifetime, name: String)? = try lock.withLock {
      guard let existing = slots[key] else { return nil }
      let slot: Slot<T> = try slotLocked(for: key, name: existing.name)
      guard let factory = slot.factory else { return nil }
      return (factory, slot.registeredLifetime, slot.name)
    }
    guard let registration else { return nil }
    return try resolve(key, lifetime: registration.lifetime, name: registration.name, factory: registration.factory)
  }

  /// The instances currently kept (built singletons, live weak instances and
  /// the like), in the order their keys were first seen.
  package func storedInstances() -> [Any] {
    lock.withLock { slotsInOrder.compactMap(\.storedInstance) }
  }

  /// The names of every key with a registered factory, in registration order.
  package func registeredNames() -> [String] {
    lock.withLock { slotsInOrder.filter(\.hasRegisteredFactory).map(\.name) }
  }
}
