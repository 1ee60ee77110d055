/// Dialects that register a factory before anything resolves it
/// (ForgeInject): the factory and its lifetime live in the slot.
extension SlotStore {
  /// Registers `factory` for `key`, replacing an earlier registration and
  /// dropping the instance the earlier one built.
  package func register<T>(
    _ key: Key,
    name: @autoclosure () -> SlotName,
    lifetime: Lifetime,
    factory: @escaping @Sendable () throws -> T
  ) throws {
    var released: [Any] = []
    let boxes: [(slot: AnySlot, box: UnsafeMutableRawPointer)] = try lock.withLock {
      let slot: Slot<T> = try slotLocked(for: key, name: name())
      slot.factory = factory
      slot.registeredLifetime = lifetime
      slot.generation &+= 1
      takeStoredLocked(slot, into: &released)
      return reclaimLocked()
    }
    release(released, boxes: boxes)
  }

  /// Resolves `key` with its registered factory; throws
  /// ``NotRegistered`` when nothing is registered for it.
  package func resolveRegistered<T>(_ key: Key, as type: T.Type = T.self) throws -> T {
    let bits = key.identityBits
    if let read = beginPublishedRead(bits: bits, as: T.self) { return read.take(T.self) }
    let known = knownEntry(bits: bits, as: T.self, in: ResolutionContext.currentFast)
    var factory: (@Sendable () throws -> T)?
    var lifetime = Lifetime.transient
    var registered: AnySlot?
    try lock.withLock {
      let slot: Slot<T>
      if let known = known?.slot {
        // This thread knows the slot: no need to hash the key.
        slot = unsafeDowncast(known.takeUnretainedValue(), to: Slot<T>.self)
      } else {
        guard let existing = slots[key] else { return }
        slot = try slotLocked(for: key, name: .text(existing.name))
      }
      factory = slot.factory
      lifetime = slot.registeredLifetime
      registered = slot
    }
    guard let factory else { throw NotRegistered() }
    // The slot exists, so its name is rendered only if a message needs it.
    return try resolve(key, lifetime: lifetime, name: registered?.name ?? "", factory: factory)
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

/// Thrown by ``SlotStore/resolveRegistered(_:as:)`` for a key without a
/// registered factory; dialects turn it into their own error.
package struct NotRegistered: Error {}
