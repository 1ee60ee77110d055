/// Serving a request from the layer ``Layer/decide(scopedOverrideDepth:hasContainerOverride:servesPreview:isKept:reachDepth:)``
/// picks: the task's scoped override, the container-wide override, the
/// preview factory, or the key's own factory with its instance kept in a
/// scope or in the container.
extension SlotStore {
  /// Resolves `slot` through the layers. `factory` is the key's own factory,
  /// or its preview factory when `servesPreview` is set.
  func resolveLayers<T>(
    _ slot: Slot<T>,
    lifetime: Lifetime,
    factory: () throws -> T,
    servesPreview: Bool,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    if Gates.scopedShutdowns.value != 0, let scope = OverrideScope.current, scope.hasShutDown(identity) {
      throw ContainerShutDown(resolving: slot)
    }
    if overrideCount.value >= Self.observerWeight {
      return try resolveObserved(slot) {
        try resolveLayersServing(
          slot, lifetime: lifetime, factory: factory, servesPreview: servesPreview, thread: thread)
      }
    }
    return try resolveLayersServing(
      slot, lifetime: lifetime, factory: factory, servesPreview: servesPreview, thread: thread)
  }

  /// ``resolveLayers(_:lifetime:factory:servesPreview:thread:)`` without
  /// observers.
  func resolveLayersServing<T>(
    _ slot: Slot<T>,
    lifetime: Lifetime,
    factory: () throws -> T,
    servesPreview: Bool,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    let scope = Gates.activeOverrideScopes.value > 0 ? OverrideScope.current : nil
    let scoped = scope?.overrideOfTarget(slot.target)
    // The container-wide override, read under this build depth's override
    // hazard pointer, which stays held while the override serves the
    // request when the depth has one of its own; otherwise it is retained.
    let overrideHazard = thread.overrideHazard
    var containerOverride: Unmanaged<AnyOverride>?
    var retainedOverride: AnyOverride?
    if scoped == nil, overrideCount.value > 0,
      let box = thread.pointee.beginHeldRead(slot.overrideCell, hazard: overrideHazard)
    {
      containerOverride = box.load(as: Unmanaged<AnyOverride>.self)
      if !thread.pointee.holdsOverrideAcrossBuild {
        retainedOverride = containerOverride?.takeUnretainedValue()
        thread.pointee.endHeldRead(hazard: overrideHazard)
      }
    }
    defer {
      if containerOverride != nil, retainedOverride == nil { thread.pointee.endHeldRead(hazard: overrideHazard) }
    }

    // Whether the slot's dependencies were known when the layer was picked;
    // when they were not, the pick is checked again once they are.
    let reachKnown = scope == nil || slot.dependenciesRecorded.value != 0
    let layer = Layer.decide(
      scopedOverrideDepth: scoped?.depth,
      hasContainerOverride: containerOverride != nil,
      servesPreview: servesPreview,
      isKept: lifetime.isStored,
      reachDepth: { scope?.reachDepth(from: slot) ?? 0 }
    )
    switch layer {
    case .scopedOverride(let depth):
      thread.pointee.markScopeUsed(depth: depth)
      // `scope`, held for this call, keeps the override.
      let value = try scoped!.override._withUnsafeGuaranteedRef { try applyOverride($0, to: slot, thread: thread) }
      noteServed(slot, .override, thread: thread)
      return value
    case .containerOverride:
      let value = try withExtendedLifetime(retainedOverride) {
        try containerOverride!._withUnsafeGuaranteedRef { try applyOverride($0, to: slot, thread: thread) }
      }
      noteServed(slot, .override, thread: thread)
      return value
    case .preview:
      var scopeDepth = 0
      let value = try runFactory(slot, factory: factory, thread: thread, records: nil, scopeDepth: &scopeDepth)
      noteServed(slot, .preview, thread: thread)
      if !slot.servedByPreview { lock.withLock { slot.servedByPreview = true } }
      return value
    case .ownFactory(let keptAtDepth):
      if let scope, scope.hasStrictMode {
        try scope.checkStrict(slot, chain: thread.pointee.owner.chain)
      }
      if let session = thread.pointee.owner.validation {
        // Validating: built for the run, kept in it, never in the container.
        return try session.resolve(
          slot, lifetime: lifetime, records: true, factory: factory, thread: thread, in: self)
      }
      guard lifetime.isStored else { return try buildOwn(slot, factory: factory, thread: thread) }
      if keptAtDepth > 0, let keeper = scope?.ancestor(atDepth: keptAtDepth) {
        thread.pointee.markScopeUsed(depth: keptAtDepth)
        return try resolveKept(slot, keeper: keeper, lifetime: lifetime, factory: factory, thread: thread, scope: scope)
      }
      if let read = thread.beginRead(slot.cell) {
        let value = read.take(T.self)
        // Built before its dependencies were known to this scope? Then the
        // decision above could not see them: ask again now they are.
        guard !reachKnown, let scope else { return value }
        let reach = scope.reachDepth(from: slot)
        guard reach > 0, let keeper = scope.ancestor(atDepth: reach) else { return value }
        thread.pointee.markScopeUsed(depth: reach)
        return try resolveKept(slot, keeper: keeper, lifetime: lifetime, factory: factory, thread: thread, scope: scope)
      }
      return try resolveKept(
        slot,
        keeper: nil,
        lifetime: lifetime,
        factory: factory,
        thread: thread,
        scope: scope,
        recheckReach: !reachKnown
      )
    }
  }

  /// Resolves `slot` through `override`: a kept instance of the override
  /// (in the override's own slot, apart from the real one, so removing the
  /// override brings the original back), or a build with its factory. What
  /// an override's factory resolves is never recorded as the real slot's
  /// dependencies: it describes the override, not the slot.
  func applyOverride<T>(
    _ override: AnyOverride,
    to slot: Slot<T>,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    // The kept slot's type is the override's: a cheaper test than a cast.
    guard override.keptSlot.valueType == ObjectIdentifier(T.self) else {
      throw mismatch(slot, actual: "a replacement of another type")
    }
    if let session = thread.pointee.owner.validation {
      // Validating: the override serves the run; what it keeps stays there.
      let typed = unsafeDowncast(override, to: Override<T>.self)
      return try session.resolve(
        typed.slot, lifetime: override.lifetime, records: false, factory: typed.make, thread: thread, in: self)
    }
    if override.lifetime.isStored {
      // Holding the override keeps its slot, and so a published box, alive;
      // the store retires boxes only once no reader's hazard pointer holds
      // them. `keptSlot` rather than the typed slot: reading a field of
      // `Override<T>` would look its metadata up.
      if let read = thread.beginRead(override.keptSlot.cell) {
        return read.take(T.self)
      }
      let typed = unsafeDowncast(override, to: Override<T>.self)
      return try resolveKept(
        typed.slot,
        keeper: nil,
        lifetime: override.lifetime,
        factory: typed.make,
        thread: thread,
        scope: nil
      )
    }
    var scopeDepth = 0
    let make = unsafeDowncast(override, to: Override<T>.self).make
    // The override's first value may finish the read that learned its key
    // (see ParkedKeyRead): only an override made while that read waited
    // has one, and only until the read is settled.
    if _slowPath(override.parkedRead?.isWaiting == true) {
      let value = try runFactory(slot, factory: make, thread: thread, records: nil, scopeDepth: &scopeDepth)
      override.handOver(value)
      return value
    }
    return try runFactory(slot, factory: make, thread: thread, records: nil, scopeDepth: &scopeDepth)
  }
}
