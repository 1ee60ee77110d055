/// One root's validation run: what it built, in isolation from the
/// container, and how it ended.
///
/// The thread that runs the root has the session in its
/// ``ResolutionContext/validation``; in an asynchronous validation, the
/// root's task has it (``taskSession``), and so every task it starts, on
/// whichever threads they run. The driver reads what the run found after it
/// has ended.
package final class ValidationSession: @unchecked Sendable {
  // @unchecked: every var is touched only with `lock` held.

  /// The session of an asynchronous validation's root and the tasks it
  /// starts. Read it through ``activeTaskSession``.
  @TaskLocal package static var taskSession: ValidationSession?

  /// The task's session while its run lasts. A task that a factory started
  /// inherits the session, and may outlive the run: from then on its
  /// resolutions are the container's, as any other task's are, not served
  /// in isolation by a run that is over.
  ///
  /// ```swift
  /// let validation = ValidationSession.activeTaskSession   // nil once the run has ended
  /// ```
  package static var activeTaskSession: ValidationSession? {
    guard let session = $taskSession.boundObject(), !session.hasEnded else { return nil }
    return session
  }

  /// Whether the run has ended (or is ending): nothing is served in it any
  /// more. Read without the lock: every resolution of a task that holds a
  /// session asks, while any asynchronous validation runs.
  package var hasEnded: Bool { endedFlag.value != 0 }

  /// One own-factory build: the slot, the lifetime it was built with, and
  /// what its factory resolved.
  package struct Build {
    package let slot: AnySlot
    package let lifetime: Lifetime
    package let dependencies: [AnySlot]
  }

  /// The instances of stored lifetimes built during the run, by slot: the
  /// container's caches are never written.
  private var kept: [ObjectIdentifier: Any] = [:]
  /// Every own-factory build of the run, in the order they finished.
  package private(set) var builds: [Build] = []
  /// The lifetime of every own-factory build begun, finished or not.
  package private(set) var attempted: [ObjectIdentifier: Lifetime] = [:]
  /// The innermost build that failed, if one did.
  package private(set) var failedSlot: AnySlot?
  /// Slots an override served during the run.
  package private(set) var overridden: Set<ObjectIdentifier> = []
  /// Every slot the run resolved, which the maps above know by address:
  /// held, so that no slot a store drops meanwhile (see `SlotKey.isGone`)
  /// can leave its address to another.
  private var held: [ObjectIdentifier: AnySlot] = [:]
  /// Where the first failure of a throwing dialect happened, noted by the
  /// dialect where it first sees the error (by the time the root catches
  /// it, the builds around it are over): the chain being built, and what
  /// it requested.
  package private(set) var firstFailure: (chain: [AnySlot], requested: String?)?

  /// Notes where a failure happened, unless one was noted already.
  package func noteFailure(chain: [AnySlot], requested: String) {
    lock.withLock {
      if firstFailure == nil { firstFailure = (chain, requested) }
    }
  }

  /// Notes that the async build of `slot` failed: the failure noted inside
  /// it, if any, happened in its chain, across the await.
  package func noteFailedAsyncBuild(of slot: AnySlot) {
    lock.withLock {
      if let first = firstFailure {
        firstFailure = ([slot] + first.chain, first.requested)
      } else {
        firstFailure = ([slot], nil)
        if failedSlot == nil { failedSlot = slot }
      }
    }
  }

  /// How the run ended, once it has.
  package enum End {
    case succeeded
    /// The error that stopped it, and the chain being built when it did
    /// (outermost first).
    case failed(any Error, chain: [AnySlot])
  }

  private let lock = ConditionLock()
  private var end: End?
  /// Tasks awaiting the end (``ended()``).
  private var endWaiters: [CheckedContinuation<Void, Never>] = []

  /// The executor the run's tasks prefer, a ``ValidationExecutor``, when
  /// the run has one: the builds it starts prefer it too. Set before the
  /// run starts.
  package var executor: AnyObject?
  /// Raised (once, with `lock` held) as the run starts to end, before what
  /// it kept is dropped.
  private let endedFlag = AtomicCounter()

  package init() {}

  deinit { endedFlag.deallocate() }

  // MARK: On the validating thread

  /// Resolves `slot` for the run: a kept instance of the run, or a build.
  /// `records` says whether it is the slot's own factory (an override's
  /// build describes the override, not the slot).
  func resolve<T, Key: SlotKey>(
    _ slot: Slot<T>,
    lifetime: Lifetime,
    records: Bool,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    in store: SlotStore<Key>
  ) throws -> T {
    let identity = ObjectIdentifier(slot)
    let keptValue: Any? = lock.withLock {
      held[identity] = slot
      if !records { overridden.insert(identity) }
      if lifetime.isStored, let value = kept[identity] { return value }
      if records, attempted[identity] == nil { attempted[identity] = lifetime }
      return nil
    }
    if let keptValue { return keptValue as! T }
    var scopeDepth = 0
    let value: T
    do {
      value = try store.runFactory(
        slot, factory: factory, thread: thread, records: records ? lifetime : nil, scopeDepth: &scopeDepth)
    } catch {
      // The innermost build the error went through: the one at fault.
      lock.withLock {
        if failedSlot == nil { failedSlot = slot }
      }
      throw error
    }
    if lifetime.isStored {
      // Two tasks of an asynchronous run may build it at once: the first
      // kept is the one served from then on.
      return lock.withLock {
        if let earlier = kept[identity] { return earlier as! T }
        kept[identity] = value
        return value
      }
    }
    return value
  }

  /// Notes a finished own-factory build of the run.
  package func noteBuild(_ slot: AnySlot, lifetime: Lifetime, dependencies: [AnySlot]) {
    lock.withLock {
      builds.append(Build(slot: slot, lifetime: lifetime, dependencies: dependencies))
    }
  }

  /// Ends the run successfully.
  package func finish() {
    conclude(.succeeded)
  }

  /// Ends the run with `error`, thrown while `chain` was being built.
  package func fail(_ error: any Error, chain: [AnySlot]) {
    conclude(.failed(error, chain: chain))
  }

  /// Ends the run as `end` says, dropping what it kept.
  private func conclude(_ end: End) {
    let dropped: [ObjectIdentifier: Any] = lock.withLock {
      endedFlag.add(1)
      defer { kept = [:] }
      return kept
    }
    withExtendedLifetime(dropped) {}  // released here, outside the lock: a deinit may resolve
    let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
      self.end = end
      lock.broadcast()
      defer { endWaiters = [] }
      return endWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  // MARK: For the driver

  /// Suspends until the run has ended, without holding a thread.
  package func ended() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let hasEnded: Bool = lock.withLock {
        guard end == nil else { return true }
        endWaiters.append(waiter)
        return false
      }
      if hasEnded { waiter.resume() }
    }
  }

  /// Waits until the run has ended and says how.
  package func waitForEnd() -> End {
    lock.withLock {
      while end == nil { lock.wait() }
      return end!
    }
  }
}

extension ValidationSession {
  /// The session of the calling thread, if it is validating.
  package static var current: ValidationSession? {
    ResolutionContext.currentIfPresent?.validation
  }

  /// For a dialect whose API cannot throw: when the calling thread is
  /// validating, ends its run with `error` and never returns (see
  /// ``Validation``); otherwise returns at once, and the caller stops the
  /// program as usual.
  ///
  /// ```swift
  /// } catch {
  ///   ValidationSession.failIfValidating(error)
  ///   fatalError("MyDialect: \(ForgeDiagnostic.of(error))")
  /// }
  /// ```
  package static func failIfValidating(_ error: any Error) {
    // An asynchronous validation's task may run on another thread, the
    // cooperative pool's or the main one, which must never be parked: the
    // dialect stops the program there, as it would outside a validation.
    // Its own thread (ValidationExecutor) may be parked.
    guard let context = ResolutionContext.currentIfPresent,
      let session = context.threadValidation
        ?? (context.parksForTaskValidation ? ValidationSession.activeTaskSession : nil)
    else { return }
    // In a task, the async builds it runs within come first.
    session.fail(error, chain: AsyncBuildNode.chainSlots + context.buildingSlots)
    parkForever()
  }

  /// A partial build cannot be unwound through the user's factories, which
  /// cannot throw: the thread stops here, holding what it built, and the
  /// driver goes on without it.
  private static func parkForever() -> Never {
    let never = ConditionLock()
    never.lock()
    while true { never.wait() }
  }
}

/// A failure reported as a diagnostic rather than an engine error, for
/// ``ValidationSession/failIfValidating(_:)`` (an `unimplemented`
/// dependency, say).
package struct DiagnosedFailure: Error, CustomStringConvertible {
  package let diagnostic: ForgeDiagnostic
  package init(_ diagnostic: ForgeDiagnostic) { self.diagnostic = diagnostic }
  package var description: String { diagnostic.description }
}
