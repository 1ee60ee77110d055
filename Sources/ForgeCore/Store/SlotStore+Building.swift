/// Running factories: on the calling thread's chain (which finds a cycle on
/// one thread), recording what they resolve, and building a kept instance
/// exactly once however many threads ask (``BuildState``), with waits that
/// would close a cycle across threads and containers refused
/// (``WaitForGraph``).
extension SlotStore {
  /// Runs `factory` with `slot` on the calling thread's chain. With
  /// `records` (the lifetime the slot is built with), what the factory
  /// resolves becomes the slot's recorded dependencies (the edges of the
  /// graph); only the slot's own factory records, never an override's or a
  /// preview's. With `keepingRecorded`, what an earlier build recorded
  /// stays: the build records only into a slot with nothing recorded yet.
  /// Reports the depth of the innermost override scope the build used.
  func runFactory<T>(
    _ slot: AnySlot,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    records: Lifetime?,
    keepingRecorded: Bool = false,
    scopeDepth: inout Int
  ) throws -> T {
    if thread.pointee.firstFrame(building: .passUnretained(slot)) != nil,
      let path = thread.pointee.owner.cycle(closedBy: slot)
    {
      throw DependencyCycleError(path: path)
    }
    guard let lifetime = records else {
      // Nothing to record: the context object is not touched.
      let value = try buildRecordingNothing(
        .passUnretained(slot), factory: factory, thread: thread, scopeDepth: &scopeDepth)
      noteServed(slot, .built, thread: thread)
      return value
    }
    let context = thread.pointee.owner
    let (value, outcome) = try context.recording(slot, factory)
    if !slot.buildsAsynchronously {
      slot.recordDependencies(outcome.dependencies, lifetime: lifetime, unlessRecorded: keepingRecorded)
      noteServed(slot, .built, thread: thread)
    }  // else the handle's build records, and tells observers, when it ends
    context.validation?.noteBuild(slot, lifetime: lifetime, dependencies: outcome.dependencies)
    scopeDepth = outcome.scopeDepth
    return value
  }

  /// Builds an instance of `slot` that is not kept, with its own factory;
  /// the first build records the slot's dependencies.
  func buildOwn<T>(_ slot: Slot<T>, factory: () throws -> T, thread: UnsafeMutablePointer<ThreadFastState>) throws -> T
  {
    var scopeDepth = 0
    return try runFactory(
      slot,
      factory: factory,
      thread: thread,
      records: slot.dependenciesRecorded.value == 0 ? .transient : nil,
      scopeDepth: &scopeDepth
    )
  }

  /// Returns the kept instance of `slot` or builds it exactly once.
  ///
  /// - Parameters:
  ///   - keeper: the override scope the instance is kept for; nil for the
  ///     container.
  ///   - scope: the task's override scope, where a container build that
  ///     turns out to depend on its overrides is kept instead; nil keeps
  ///     such a build nowhere (an override's own slot).
  ///   - recheckReach: whether the layer was picked before the slot's
  ///     dependencies were known; once another build records them, the
  ///     scope's reach is asked again.
  func resolveKept<T>(
    _ slot: Slot<T>,
    keeper: OverrideScope?,
    lifetime: Lifetime,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    scope: OverrideScope?,
    recheckReach: Bool = false
  ) throws -> T {
    let context = thread.pointee.owner
    let me = ObjectIdentifier(context)
    let keeperID = keeper.map(ObjectIdentifier.init)
    var recheckReach = recheckReach && scope != nil
    lock.lock()
    var ticket: BuildState.Ticket?
    while ticket == nil {
      let step: BuildState.Step
      if let keeperID {
        if let value = slot.scopeInstance(for: keeperID) {
          lock.unlock()
          return value
        }
        var created = false
        step = slot.beginScopeBuild(for: keeperID, by: me, lifetime: lifetime, created: &created)
        if created { keeper?.noteKept(in: slot) }
      } else {
        if recheckReach, let scope, slot.dependenciesRecorded.value != 0 {
          // A build this one waited for, or that ended before this one
          // took the lock, recorded what the slot depends on: if that
          // reaches the scope's overrides, the instance is the scope's.
          lock.unlock()
          recheckReach = false
          let reach = scope.reachDepth(from: slot)
          if reach > 0, let owner = scope.ancestor(atDepth: reach) {
            thread.pointee.markScopeUsed(depth: reach)
            return try resolveKept(
              slot, keeper: owner, lifetime: lifetime, factory: factory, thread: thread, scope: scope)
          }
          lock.lock()
          continue
        }
        if let value = slot.stored() {
          lock.unlock()
          return value
        }
        step = slot.state.begin(by: me, hasInstance: false, lifetime: lifetime)
      }
      switch step {
      case .take:
        continue
      case .build(let granted):
        ticket = granted
      case .cycle:
        lock.unlock()
        throw DependencyCycleError(path: context.cycle(closedBy: slot) ?? [slot.name, slot.name])
      case .wait(let owner):
        if let path = WaitForGraph.beginWait(me, chain: context.buildingSlots, for: slot, owner: owner) {
          lock.unlock()
          throw DependencyCycleError(path: path)
        }
        lock.wait()
        WaitForGraph.endWait(me)
      }
    }
    lock.unlock()
    guard let ticket else {
      fatalError("ForgeCore: \(ForgeDiagnostic.internalError("a build began without a ticket"))")
    }

    var scopeDepth = 0
    let value: T
    do {
      // A scope's instance is built by the slot's own factory too: its
      // build records what it resolved when nothing is recorded yet (a
      // test that isolates the store builds first), so that the test's
      // graph has its edges. The container's build replaces that record,
      // and a scope's never replaces the container's: the container's
      // instance is judged by what its own build resolved.
      value = try runFactory(
        slot, factory: factory, thread: thread,
        records: keeper == nil || slot.dependenciesRecorded.value == 0 ? lifetime : nil,
        keepingRecorded: keeper != nil, scopeDepth: &scopeDepth)
    } catch {
      lock.withLock {
        if let keeperID {
          slot.finishScopeBuild(for: keeperID, ticket: ticket, keeping: nil, lifetime: lifetime)
        } else {
          slot.state.abandon(ticket)
        }
        WaitForGraph.buildEnded(slot)
        lock.broadcast()
      }
      throw error
    }
    var boxes: [RetiredBox] = []
    lock.withLock {
      if let keeperID {
        slot.finishScopeBuild(for: keeperID, ticket: ticket, keeping: value, lifetime: lifetime)
      } else if slot.state.finish(ticket) {
        // A store isolated by the task's scope (ForgeTesting) keeps nothing
        // in the container while it lasts.
        if let isolated = scope?.isolationDepth(for: identity), isolated > scopeDepth {
          scopeDepth = isolated
          thread.pointee.markScopeUsed(depth: isolated)
        }
        if scopeDepth == 0 {
          if let replaced = slot.store(value, lifetime: lifetime) {
            retired.retire(replaced, of: slot, kind: .instance)
            boxes = retired.reclaim()
          }
        } else if let owner = scope?.ancestor(atDepth: scopeDepth) {
          // Built from something the task's scope overrides: the scope's
          // instance, out of reach of callers outside it.
          if slot.keepInScope(ObjectIdentifier(owner), value, lifetime: lifetime) { owner.noteKept(in: slot) }
        }
      }
      WaitForGraph.buildEnded(slot)
      lock.broadcast()
    }
    RetiredBox.destroy(boxes)
    return value
  }
}
