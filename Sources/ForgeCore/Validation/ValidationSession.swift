/// One root's validation run: what it built, in isolation from the
/// container, and how it ended.
///
/// The thread that runs the root has the session in its
/// ``ResolutionContext/validation``; only that thread touches `kept` and
/// `builds`. The driver reads them after the run has ended (``finished``).
package final class ValidationSession: @unchecked Sendable {
  // @unchecked: `kept` and `builds` belong to the validating thread until
  // `finish` or `fail`, which publish them under `lock`; the driver reads
  // them only after that.

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
  /// Where the first failure of a throwing dialect happened, noted by the
  /// dialect where it first sees the error (by the time the root catches
  /// it, the builds around it are over): the chain being built, and what
  /// it requested.
  package private(set) var firstFailure: (chain: [AnySlot], requested: String)?

  /// Notes where a failure happened, unless one was noted already.
  package func noteFailure(chain: [AnySlot], requested: String) {
    if firstFailure == nil { firstFailure = (chain, requested) }
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

  package init() {}

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
    if !records { overridden.insert(identity) }
    if lifetime.isStored, let value = kept[identity] { return value as! T }
    if records, attempted[identity] == nil { attempted[identity] = lifetime }
    var scopeDepth = 0
    let value: T
    do {
      value = try store.runFactory(
        slot, factory: factory, thread: thread, records: records ? lifetime : nil, scopeDepth: &scopeDepth)
    } catch {
      // The innermost build the error went through: the one at fault.
      if failedSlot == nil { failedSlot = slot }
      throw error
    }
    if lifetime.isStored { kept[identity] = value }
    return value
  }

  /// Notes a finished own-factory build of the run.
  func noteBuild(_ slot: AnySlot, lifetime: Lifetime, dependencies: [AnySlot]) {
    builds.append(Build(slot: slot, lifetime: lifetime, dependencies: dependencies))
  }

  /// Ends the run successfully.
  package func finish() {
    kept = [:]
    lock.withLock {
      end = .succeeded
      lock.broadcast()
    }
  }

  /// Ends the run with `error`, thrown while `chain` was being built.
  package func fail(_ error: any Error, chain: [AnySlot]) {
    kept = [:]
    lock.withLock {
      end = .failed(error, chain: chain)
      lock.broadcast()
    }
  }

  // MARK: For the driver

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
    guard let context = ResolutionContext.currentIfPresent, let session = context.validation else { return }
    session.fail(error, chain: context.buildingSlots)
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
