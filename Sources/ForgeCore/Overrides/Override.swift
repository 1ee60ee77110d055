/// A replacement factory for one dependency, installed container-wide or for
/// the duration of a closure.
@usableFromInline package class AnyOverride: @unchecked Sendable {
  // @unchecked: immutable after init, except through `slot`, whose state the
  // owning store's lock guards.
  /// How the override's instances are kept. Forge never keeps them
  /// (`.transient`); SwiftPod keeps them under the provider's scope.
  @usableFromInline package let lifetime: Lifetime
  /// Where a kept instance of the override lives: apart from the real slot,
  /// so removing the override brings the original instance back.
  @usableFromInline package let keptSlot: AnySlot
  /// The key-path read that found this override's key, while it waits for
  /// a value (see ``ParkedKeyRead``): the override's first hands it one.
  @usableFromInline package let parkedRead: ParkedKeyRead?
  /// What the dialect that made the override keeps with it, for as long as
  /// the override lives (ForgeInject: what validation resolves for a
  /// test's registration).
  package let attachment: (any Sendable)?

  init(lifetime: Lifetime, keptSlot: AnySlot, parkedRead: ParkedKeyRead?, attachment: (any Sendable)?) {
    self.lifetime = lifetime
    self.keptSlot = keptSlot
    self.parkedRead = parkedRead
    self.attachment = attachment
  }

  deinit {
    // Never resolved while its read was parked: its store takes the
    // lock-free fronts again.
    parkedRead?.releaseGeneralPath(for: ObjectIdentifier(self))
  }

  /// Hands `value`, which this override just built, to the read parked for
  /// it, if one still waits. The general path's: the lock-free fronts are
  /// closed to a store while one does (see `ParkedKeyRead`).
  package func handOver(_ value: Any) {
    parkedRead?.resume(with: value)
  }
}

@usableFromInline package final class Override<T>: AnyOverride, @unchecked Sendable {
  // @unchecked: `make` is @Sendable and immutable; `slot` is guarded by the
  // store lock like every slot.
  @usableFromInline package let make: @Sendable () throws -> T
  package let slot: Slot<T>

  /// Use ``SlotStore/makeOverride(_:name:lifetime:make:)``, which passes the
  /// store's lock: the override's slot is resolved by that store.
  init(
    name: SlotName, target: OverrideScope.Target, storeLock: ConditionLock, lifetime: Lifetime,
    parkedRead: ParkedKeyRead?, attachment: (any Sendable)?, make: @escaping @Sendable () throws -> T
  ) {
    self.make = make
    let slot = Slot<T>(name: name, target: target, storeLock: storeLock)
    self.slot = slot
    super.init(lifetime: lifetime, keptSlot: slot, parkedRead: parkedRead, attachment: attachment)
  }
}
