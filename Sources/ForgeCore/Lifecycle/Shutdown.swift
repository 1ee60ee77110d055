/// An instance that has work to do when its container shuts down: close a
/// connection, flush a file, stop a timer.
///
/// ```swift
/// final class Database: GracefulShutdown {
///   func shutdown() async throws { try await connection.close() }
/// }
///
/// await AppContainer.shared.shutdown()   // dependents first, then Database
/// ```
public protocol GracefulShutdown: Sendable {
  /// Called once, by the container that kept the instance, when it shuts
  /// down; after every instance kept later (its dependents) was shut down.
  func shutdown() async throws
}

/// What a container's `shutdown()` did.
///
/// ```swift
/// let report = await container.shutdown()
/// #expect(report.failures.isEmpty, "\(report)")
/// ```
public struct ShutdownReport: Sendable, CustomStringConvertible {
  /// A `shutdown()` that threw.
  public struct Failure: Sendable, CustomStringConvertible {
    /// The dependency whose instance threw, as messages name it.
    public let dependency: String
    public let error: any Error

    public var description: String { "\(dependency): \(error)" }
  }

  /// The dependencies whose instances were shut down, in the order they
  /// were (the latest kept first: dependents before their dependencies),
  /// those that threw included.
  public let stopped: [String]
  /// Every `shutdown()` that threw; the others ran all the same.
  public let failures: [Failure]

  /// Whether every `shutdown()` succeeded.
  public var isClean: Bool { failures.isEmpty }

  public var description: String {
    var text = "Shut down \(stopped.count) instance(s): \(stopped.joined(separator: ", "))."
    for failure in failures { text += "\n- failed: \(failure)" }
    return text
  }
}

/// A resolution of a container after its `shutdown()`.
package struct ContainerShutDown: Error, CustomStringConvertible {
  package let dependency: String
  /// The builds in progress that resolved it, outermost first (across
  /// awaits too).
  package let chain: [String]

  /// The failure of a resolution of `slot` now, named with the builds in
  /// progress on the calling thread and task.
  init(resolving slot: AnySlot) {
    dependency = slot.name
    chain = AsyncBuildNode.chain + ResolutionContext.current.chain
  }

  package var diagnostic: ForgeDiagnostic {
    ForgeDiagnostic(
      .shutDown,
      "\(dependency) was resolved after its container shut down",
      chain: chain.isEmpty ? [] : chain + [dependency],
      reason: "shutdown() stopped and released what the container kept; it builds nothing any more.",
      fix: "resolve what you need before shutdown(), or use a new container."
    )
  }

  package var description: String { diagnostic.description }
}

/// The process-wide order of kept instances (and of a test's
/// registrations, which ForgeInject lists in the order they were made).
package enum StoredSequence {
  package static let next = AtomicCounter()
}

extension SlotStore {
  /// Stops the store: from now on every resolution fails with
  /// ``ContainerShutDown``; every kept instance is taken out, latest first,
  /// and those adopting ``GracefulShutdown`` are shut down in that order.
  /// A second call finds nothing to do.
  ///
  /// The builds of kept instances in progress end first (their factories
  /// may still resolve what they need), so that what they build is shut
  /// down too, before what it resolved: a server whose database opens as
  /// the process is asked to stop. Cancelling the calling task stops that
  /// wait; a build still in progress then finishes for its callers, is
  /// not kept, and what it resolves after the store stopped fails. A build
  /// started by the task that shuts down is not waited for.
  package func shutdown() async -> ShutdownReport {
    if let isolating = isolatingScope() { return await shutdown(for: isolating) }
    while !Task.isCancelled {
      let (building, buildsOnThreads) = lock.withLock { () -> ([any AsyncKeptInstance], Bool) in
        guard !isShutDown else { return ([], false) }
        // The overrides' own slots too: what they keep is stopped with the rest.
        let keeping = Array(slots.values) + overrides.values.map(\.keptSlot)
        let building = keeping.compactMap { slot -> (any AsyncKeptInstance)? in
          guard let handle = slot.storedInstance as? any AsyncKeptInstance, handle.hasBuildInProgress else {
            return nil
          }
          return handle
        }
        let buildsOnThreads = keeping.contains { $0.state.building != nil }
        if !building.isEmpty || buildsOnThreads { shutdownWaits += 1 }
        return (building, buildsOnThreads)
      }
      if building.isEmpty, !buildsOnThreads { break }
      for handle in building { await handle.buildInProgressEnded() }
      // A synchronous build runs on its thread without telling anyone when
      // it ends: look again shortly.
      if buildsOnThreads { try? await Task.sleep(for: .milliseconds(1)) }
    }
    var taken: [Taken] = []
    let boxes: [RetiredBox] = lock.withLock {
      guard !isShutDown else { return [] }
      isShutDown = true
      // The overrides' own instances too: the container built them.
      for slot in slots.values + overrides.values.map(\.keptSlot) {
        // A build in progress finishes for its caller, but is not kept.
        slot.state.invalidate()
        takeForShutdownLocked(slot, into: &taken)
      }
      return retired.reclaim()
    }
    changeOverrideCount(by: Self.observerWeight)
    RetiredBox.destroy(boxes)
    return await Self.shutDown(taken)
  }

  /// An instance taken out for shutdown: when it was kept, and by whom.
  private typealias Taken = (sequence: Int, name: String, instance: Any)

  /// Takes out what `slot` keeps, into `taken`. Call with the lock held.
  private func takeForShutdownLocked(_ slot: AnySlot, into taken: inout [Taken]) {
    let sequence = slot.storedSequence
    var released: [Any] = []
    takeStoredLocked(slot, into: &released)
    for instance in released { Self.append(instance, kept: sequence, of: slot, to: &taken) }
  }

  /// Adds `instance`, kept at `sequence` by `slot`, to `taken`; for an
  /// async dependency's handle, the instance it holds, kept when its build
  /// ended (after what the build resolved).
  private static func append(_ instance: Any, kept sequence: Int, of slot: AnySlot, to taken: inout [Taken]) {
    if let handle = instance as? any AsyncKeptInstance {
      if let kept = handle.keptForShutdown { taken.append((kept.sequence, slot.name, kept.instance)) }
    } else {
      taken.append((sequence, slot.name, instance))
    }
  }

  /// ``shutdown()`` inside a scope that isolates this store (a test's, with
  /// ForgeTesting): the scope's own instances, and those its overrides of
  /// this store keep (the test's registrations), are taken out and shut
  /// down, and resolutions from this store in that scope fail from now on;
  /// the container, and every other test, is untouched.
  private func shutdown(for scope: OverrideScope) async -> ShutdownReport {
    guard scope.noteShutDown(of: identity, host: self) else { return ShutdownReport(stopped: [], failures: []) }
    let me = ObjectIdentifier(scope)
    // Listed before locking the store: a scope takes its own lock.
    let overrides = scope.isolatedOverrides(of: identity)
    var taken: [Taken] = []
    let boxes: [RetiredBox] = lock.withLock {
      for slot in slots.values {
        for entry in slot.takeScopeKept(of: me) {
          Self.append(entry.instance, kept: entry.sequence, of: slot, to: &taken)
        }
      }
      for override in overrides {
        override.keptSlot.state.invalidate()
        takeForShutdownLocked(override.keptSlot, into: &taken)
      }
      return retired.reclaim()
    }
    RetiredBox.destroy(boxes)
    return await Self.shutDown(taken)
  }

  /// Shuts down the instances of `taken` that adopt ``GracefulShutdown``,
  /// the latest kept first.
  private static func shutDown(_ taken: [Taken]) async -> ShutdownReport {
    var stopped: [String] = []
    var failures: [ShutdownReport.Failure] = []
    for entry in taken.sorted(by: { $0.sequence > $1.sequence }) {
      guard let participant = entry.instance as? any GracefulShutdown else { continue }
      stopped.append(entry.name)
      do {
        try await participant.shutdown()
      } catch {
        failures.append(ShutdownReport.Failure(dependency: entry.name, error: error))
      }
    }
    return ShutdownReport(stopped: stopped, failures: failures)
  }
}
