/// Observers: adding, removing, and telling them what a resolution did.
///
/// Nothing here runs unless an observer is added: the observed path is
/// chosen by `overrideCount`, which the hit already reads, and an observer
/// adds ``observerWeight`` to it.
extension SlotStore {
  /// What an observer adds to `overrideCount`: far above any number of
  /// overrides, so that "observed" is one comparison.
  @inlinable
  static var observerWeight: Int { 1 << 40 }

  /// Whether `overrides`, the store's override count as a read loaded it,
  /// says that container-wide overrides are installed and nothing holds
  /// the store on its general path (`0 < overrides < observerWeight`), in
  /// one unsigned comparison: the two signed ones cost Forge's override
  /// read three instructions more (SwiftPod's and DependencyFetcher's
  /// object-key read, `servedPastObjectOverrides`, pays one more with it,
  /// for one definition of the test).
  @inlinable @inline(__always)
  static func onlyOverridesInstalled(_ overrides: Int) -> Bool {
    UInt(bitPattern: overrides &- 1) < UInt(bitPattern: observerWeight &- 1)
  }

  /// Starts telling `observer` about this store's resolutions; added
  /// inside a scope that isolates this store (a test's), about those of
  /// that scope's tasks only.
  package func addObserver(_ observer: any ResolutionObserver) -> ObserverToken {
    let token = ObserverToken(value: ObserverTokens.next.add(1))
    let isolating = isolatingScope()
    let entry = ObserverEntry(observer: observer, isScoped: isolating != nil, scope: isolating)
    lock.withLock { observers[token.value] = entry }
    changeOverrideCount(by: Self.observerWeight)
    return token
  }

  /// The observers to tell about a resolution of the calling task: all of
  /// them but those added in a test that the task is not part of.
  func observersOfCallingTask() -> [any ResolutionObserver] {
    observersOfCallingTask(among: lock.withLock { observerEntriesLocked })
  }

  /// The observers, as ``observersOfCallingTask()`` reads them; with the
  /// lock held.
  var observerEntriesLocked: [ObserverEntry] { observers.isEmpty ? [] : Array(observers.values) }

  /// Those of `entries` to tell about a resolution of the calling task.
  func observersOfCallingTask(among entries: [ObserverEntry]) -> [any ResolutionObserver] {
    // None: what holds the store on this path is a parked key read (see
    // `ParkedKeyRead`) or a shutdown.
    guard !entries.isEmpty else { return [] }
    guard entries.contains(where: \.isScoped) else { return entries.map(\.observer) }
    let scopes = OverrideScope.current?.chain.map(ObjectIdentifier.init) ?? []
    return entries.compactMap { entry in
      guard entry.isScoped else { return entry.observer }
      guard let scope = entry.scope, scopes.contains(ObjectIdentifier(scope)) else { return nil }
      return entry.observer
    }
  }

  /// Stops telling the observer `token` names; nothing when it was removed
  /// already or belongs to another store.
  package func removeObserver(_ token: ObserverToken) {
    let removed = lock.withLock { observers.removeValue(forKey: token.value) }
    if removed != nil { changeOverrideCount(by: -Self.observerWeight) }
  }

  /// Resolves `slot` with `serve`, telling the observers what happened;
  /// a container that was shut down refuses it.
  ///
  /// With no observer to tell (the store is held on this path by a parked
  /// key read, or the observers were added in another test), it serves:
  /// no event, no name, no clock. A note of how a slot was served is
  /// written after its work, so one this leaves in the thread's context
  /// is overwritten by the note of any enclosing observed resolution that
  /// did work around it.
  func resolveObserved<T>(_ slot: AnySlot, serve: () throws -> T) throws -> T {
    let (shutDown, entries) = lock.withLock { () -> (Bool, [ObserverEntry]) in (isShutDown, observerEntriesLocked) }
    if shutDown { throw ContainerShutDown(resolving: slot) }
    let observers = observersOfCallingTask(among: entries)
    guard !observers.isEmpty else { return try serve() }
    let context = ResolutionContext.current
    // Below the async builds the task runs, if any (the gate is raised
    // while one that records runs).
    let asyncChain = Gates.activeOverrideScopes.value != 0 ? AsyncBuildNode.chain : []
    let chain = asyncChain + context.chain
    func tell(_ kind: ResolutionEvent.Kind) {
      let event = ResolutionEvent(kind: kind, dependency: slot.name, chain: chain)
      for observer in observers { observer.resolution(event) }
    }
    tell(.requested)
    let previous = context.served
    context.served = nil
    defer { context.served = previous }
    let start = ContinuousClock.now
    let value: T
    do {
      value = try serve()
    } catch {
      tell(.failed(ForgeDiagnostic.of(error).description))
      throw error
    }
    let served = context.served
    switch served?.slot == ObjectIdentifier(slot) ? served?.how : nil {
    case .built: tell(.built(ContinuousClock.now - start))
    case .override: tell(.overrideUsed)
    case .preview: tell(.previewUsed)
    case nil: tell(.cacheHit)
    }
    return value
  }

  /// Notes, for an observed resolution of `slot` in progress, how it was
  /// served; the last note for the slot is the one that counts.
  func noteServed(_ slot: AnySlot, _ how: ResolutionContext.Served, thread: UnsafeMutablePointer<ThreadFastState>) {
    guard overrideCount.value >= Self.observerWeight else { return }
    thread.pointee.owner.served = (ObjectIdentifier(slot), how)
  }
}

extension SlotStore: AsyncBuildHost {
  package func asyncBuildObservers() -> [any ResolutionObserver] {
    guard overrideCount.value >= Self.observerWeight else { return [] }
    return observersOfCallingTask()
  }
}

/// An observer of a store, and the test it was added in, if any.
struct ObserverEntry {
  let observer: any ResolutionObserver
  /// Whether it was added inside a scope that isolates the store: it then
  /// hears that scope's tasks only, and nothing once the scope is gone.
  let isScoped: Bool
  weak var scope: OverrideScope?
}

/// Tokens are unique across stores.
private enum ObserverTokens {
  static let next = AtomicCounter()
}
