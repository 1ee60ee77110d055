/// A container's dependencies: one slot per key, the container-wide
/// overrides, and the resolution algorithm every dialect shares.
///
/// `Key` is whatever identifies a dependency cheaply in the dialect: Forge's
/// `#function` string, a type's `ObjectIdentifier`, a provider object's
/// identity.
///
/// Resolution order, first match wins:
/// 1. an override of the current task's ``OverrideScope`` (and instances it
///    helped build),
/// 2. a container-wide override,
/// 3. the factory the caller passes (a dialect picks the preview factory here
///    when it runs in a preview).
///
/// A stored lifetime builds its instance exactly once however many threads
/// ask: the first marks the slot as building under the lock, runs the factory
/// with the lock released (so the factory may resolve other dependencies),
/// and publishes the result under the lock; the others wait. A thread that
/// asks for a slot its own chain is building, or that would wait on a thread
/// waiting for it, has found a cycle and gets a ``DependencyCycleError``.
package final class SlotStore<Key: Hashable & Sendable>: @unchecked Sendable {
  // @unchecked: `slots`, `overrides` and `waiting`, and every slot's mutable
  // state, are only touched while `lock` is held.
  package let lock = ConditionLock()
  var slots: [Key: AnySlot] = [:]
  /// Every slot in the order its key was first seen.
  var slotsInOrder: [AnySlot] = []
  private var overrides: [Key: AnyOverride] = [:]
  private var waiting: [ObjectIdentifier: (slot: AnySlot, chain: [AnySlot])] = [:]
  /// Keys learned by reading an accessor in capture mode, by the accessor's alias.
  var discoveredKeys: [AnyHashable: Key] = [:]

  package init() {}

  private var identity: ObjectIdentifier { ObjectIdentifier(self) }

  // MARK: Resolving

  /// Resolves `key`, building with `factory` when no override applies and no
  /// stored instance exists.
  package func resolve<T>(
    _ key: Key,
    lifetime: Lifetime,
    name: @autoclosure () -> String,
    factory: () throws -> T
  ) throws -> T {
    lock.lock()
    let slot: Slot<T>
    do {
      slot = try slotLocked(for: key, name: name())
    } catch {
      lock.unlock()
      throw error
    }
    let containerOverride = overrides.isEmpty ? nil : overrides[key]
    lock.unlock()
    ResolutionContext.currentIfPresent?.recordDependency(slot)

    if let scope = OverrideScope.current {
      if let entry = scope.entry(for: slot.target) {
        ResolutionContext.current.markScopedOverrideUsed()
        return try resolve(entry, slot: slot)
      }
      if let built = scope.instance(for: slot.target) as? T {
        ResolutionContext.current.markScopedOverrideUsed()
        return built
      }
      if containerOverride == nil, lifetime.isStored, scope.reachesOverride(from: slot) {
        // Kept from before the scope, but built from a dependency the scope
        // replaces: build it again for this scope only.
        ResolutionContext.current.markScopedOverrideUsed()
        let value = try build(slot, factory: factory).value
        scope.remember(value, for: slot.target)
        return value
      }
    }
    if let containerOverride {
      return try resolve(containerOverride, slot: slot)
    }
    if lifetime.isStored {
      return try resolveStored(slot, key: key, lifetime: lifetime, factory: factory)
    }
    return try build(slot, factory: factory).value
  }

  private func resolve<T>(_ override: AnyOverride, slot: Slot<T>) throws -> T {
    guard let typed = override as? Override<T> else {
      throw mismatch(slot, actual: "a replacement of another type")
    }
    if override.lifetime.isStored {
      return try resolveStored(typed.slot, key: nil, lifetime: override.lifetime, factory: typed.make)
    }
    return try build(slot, factory: typed.make).value
  }

  /// Runs `factory` with `slot` on the calling thread's chain, and records
  /// what it resolved as the slot's dependencies.
  private func build<T>(_ slot: AnySlot, factory: () throws -> T) throws -> (value: T, usedScopedOverride: Bool) {
    let context = ResolutionContext.current
    if let path = context.cycle(closedBy: slot) {
      throw DependencyCycleError(path: path)
    }
    context.push(slot)
    let value: T
    do {
      value = try factory()
    } catch {
      context.pop()
      throw error
    }
    let outcome = context.pop()
    lock.withLock { slot.dependencies = outcome.dependencies }
    return (value, outcome.usedScopedOverride)
  }

  /// Returns the stored instance or builds it exactly once. `key` is nil for
  /// an override's own slot, whose instance is never remembered by a scope.
  private func resolveStored<T>(
    _ slot: Slot<T>,
    key: Key?,
    lifetime: Lifetime,
    factory: () throws -> T
  ) throws -> T {
    lock.lock()
    if let value = slot.stored() {
      lock.unlock()
      return value
    }
    let context = ResolutionContext.current
    let me = ObjectIdentifier(context)
    while let builder = slot.builder {
      if builder == me {
        lock.unlock()
        throw DependencyCycleError(path: context.cycle(closedBy: slot) ?? [slot.name, slot.name])
      }
      if let path = waitCycle(from: slot, me: me, context: context) {
        lock.unlock()
        throw DependencyCycleError(path: path)
      }
      waiting[me] = (slot, context.frames.map(\.slot))
      lock.wait()
      waiting[me] = nil
      if let value = slot.stored() {
        lock.unlock()
        return value
      }
    }
    slot.builder = me
    let generation = slot.generation
    lock.unlock()

    let result: (value: T, usedScopedOverride: Bool)
    do {
      result = try build(slot, factory: factory)
    } catch {
      lock.withLock {
        slot.builder = nil
        lock.broadcast()
      }
      throw error
    }
    lock.withLock {
      slot.builder = nil
      // A re-registration during the build replaced the factory: the result
      // of the old one is handed to this caller but not kept.
      if !result.usedScopedOverride, slot.generation == generation {
        slot.store(result.value, lifetime: lifetime)
      }
      lock.broadcast()
    }
    if result.usedScopedOverride, let key, let scope = OverrideScope.current {
      scope.remember(result.value, for: OverrideScope.Target(store: identity, key: key))
    }
    return result.value
  }

  /// The cycle that waiting for `slot` would close across threads: `slot` is
  /// built by a thread that waits (maybe through others) for a slot this
  /// thread is building. Call with the lock held.
  private func waitCycle(from slot: AnySlot, me: ObjectIdentifier, context: ResolutionContext) -> [String]? {
    var segments: [String] = []
    var target = slot
    var hops = 0
    while let owner = target.builder, hops <= waiting.count {
      if owner == me {
        let mine = context.frames.drop { $0.slot !== target }.map(\.slot.name)
        return mine + segments + [target.name]
      }
      guard let record = waiting[owner] else { return nil }
      segments += record.chain.drop { $0 !== target }.map(\.name)
      target = record.slot
      hops += 1
    }
    return nil
  }

  func slotLocked<T>(for key: Key, name: @autoclosure () -> String) throws -> Slot<T> {
    if let existing = slots[key] {
      guard existing.valueType == ObjectIdentifier(T.self) else {
        throw mismatch(existing, expected: String(reflecting: T.self))
      }
      return unsafeDowncast(existing, to: Slot<T>.self)
    }
    let slot = Slot<T>(name: name(), target: OverrideScope.Target(store: identity, key: key), storeLock: lock)
    slots[key] = slot
    slotsInOrder.append(slot)
    return slot
  }

  private func mismatch(_ slot: AnySlot, expected: String? = nil, actual: String? = nil) -> DependencyTypeMismatchError {
    DependencyTypeMismatchError(
      dependency: slot.name,
      expected: expected ?? slot.valueTypeName,
      actual: actual ?? slot.valueTypeName,
      chain: ResolutionContext.current.chain
    )
  }

  // MARK: Overrides

  /// A replacement for `key` resolved by this store, to install container-wide
  /// with ``setOverride(_:name:lifetime:make:)`` or in an ``OverrideScope``.
  package func makeOverride<T>(
    _ key: Key,
    name: String,
    lifetime: Lifetime = .transient,
    make: @escaping @Sendable () throws -> T
  ) -> Override<T> {
    let target = OverrideScope.Target(store: identity, key: key)
    return Override(name: name, target: target, storeLock: lock, lifetime: lifetime, make: make)
  }

  /// Installs a container-wide replacement for `key`, ahead of the real factory.
  package func setOverride<T>(
    _ key: Key,
    name: String,
    lifetime: Lifetime = .transient,
    make: @escaping @Sendable () throws -> T
  ) {
    let entry = makeOverride(key, name: name, lifetime: lifetime, make: make)
    let replaced = lock.withLock { overrides.updateValue(entry, forKey: key) }
    _ = replaced  // released here, outside the lock
  }

  /// Removes the container-wide replacement for `key`, with anything it kept.
  package func removeOverride(_ key: Key) {
    let removed = lock.withLock { overrides.removeValue(forKey: key) }
    _ = removed
  }

  package func removeAllOverrides() {
    let removed = lock.withLock {
      defer { overrides.removeAll() }
      return overrides
    }
    _ = removed
  }

  // MARK: Clearing

  /// Drops every stored instance whose lifetime matches, including those kept
  /// for overrides. Instances are released after the lock is given up, since
  /// a deinit may resolve again.
  package func clearStored(where matches: (Lifetime) -> Bool) {
    clearStored { _, lifetime in matches(lifetime) }
  }

  /// Drops every stored instance whose key and lifetime match, including
  /// those kept for overrides of the key.
  package func clearStored(where matches: (Key, Lifetime) -> Bool) {
    var released: [Any] = []
    lock.withLock {
      func clear(_ slot: AnySlot, _ key: Key) {
        if let lifetime = slot.storedLifetime, matches(key, lifetime), let old = slot.takeStored() {
          released.append(old)
        }
      }
      for (key, slot) in slots { clear(slot, key) }
      for (key, entry) in overrides { clear(entry.keptSlot, key) }
    }
    released.removeAll()
  }
}
