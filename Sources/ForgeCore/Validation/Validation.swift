/// Validation: resolves each root in isolation and collects every problem.
///
/// **Isolation.** Each root runs with a ``ValidationSession`` on its thread.
/// Every resolution then takes the locked path; a dependency's own factory
/// builds an instance for the session, kept there as its lifetime says and
/// dropped when the root is done, so the container's caches are neither read
/// nor written. Overrides in force (container-wide, and the caller's
/// `withOverrides` scope) serve as usual; preview factories never run.
///
/// **Collecting.** A dialect whose resolutions throw (ForgeInject) runs each
/// root on the calling thread and catches what it throws. A dialect whose
/// resolutions cannot throw runs its roots on a thread of its own
/// (``RootRun``), one after another: a failure ends the root's session
/// where the dialect would stop the program
/// (``ValidationSession/failIfValidating(_:)``), and since the partial build
/// cannot be unwound through the user's factories, that thread stays parked
/// until the process ends; the next root runs on a new thread. A failing
/// root costs one idle thread; sound ones cost nothing afterwards.
///
/// **Lifetimes.** After the roots, every recorded build is checked for a
/// captive dependency (``isCaptive(holder:held:)``).
package enum Validation {
  /// Something to validate: a name for messages and a resolution.
  package struct Root: Sendable {
    package let name: String
    package let resolve: @Sendable () throws -> Void
    /// The dependency the root resolves, when the dialect knows its slot
    /// (ForgeInject's registrations). A root whose dependency an earlier
    /// root's run built with its own factory, to the end, is not run
    /// again: that run checked it and all it resolves, and the same run
    /// again would find nothing new. A registration's subgraph is then
    /// built once per validation, not once per registration above it.
    package let dependency: Dependency?

    package init(
      name: String,
      dependency: Dependency? = nil,
      resolve: @escaping @Sendable () throws -> Void
    ) {
      self.name = name
      self.dependency = dependency
      self.resolve = resolve
    }
  }

  /// A dependency as a validation tells it from the slots its runs built:
  /// its store and its key's identity bits (plain words, cheap to copy and
  /// to hash, where an override target holds its key as an `AnyHashable`).
  ///
  /// ```swift
  /// let dependency = Validation.Dependency(store: store.identity, key: ObjectIdentifier(T.self))
  /// ```
  package struct Dependency: Hashable, Sendable {
    let store: ObjectIdentifier
    let bits: SlotKeyBits

    /// `key` in `store`; nil for a key without identity bits.
    package init?<Key: SlotKey>(store: ObjectIdentifier, key: Key) {
      guard let bits = key.identityBits else { return nil }
      self.store = store
      self.bits = bits
    }

    /// The dependency `slot` stands for.
    init?(_ slot: AnySlot) {
      guard let bits = slot.target.keyBits else { return nil }
      store = slot.target.store
      self.bits = bits
    }

    /// One word: a key's first bits tell most keys of a store apart (a
    /// type's metadata, a provider's serial), and a validation's stores are
    /// few. Equality still compares every word.
    package func hash(into hasher: inout Hasher) {
      hasher.combine(bits.first ^ UInt(bitPattern: store))
    }
  }

  /// The dependencies the runs so far built with their own factories, to
  /// the end: a root resolving one of them need not run (``Root/dependency``).
  private struct Built {
    private var dependencies: Set<Dependency> = []

    func covers(_ root: Root?) -> Bool {
      guard let dependency = root?.dependency else { return false }
      return dependencies.contains(dependency)
    }

    mutating func note(_ session: ValidationSession) {
      for build in session.builds {
        if let dependency = Dependency(build.slot) { dependencies.insert(dependency) }
      }
    }
  }

  /// Validates `roots` in order and reports every problem.
  ///
  /// - Parameters:
  ///   - throwing: whether the dialect's resolutions throw (they then run
  ///     on the calling thread).
  ///   - diagnose: the dialect's diagnostic for an error its resolutions
  ///     threw; nil for one in the engine's vocabulary and for a factory's
  ///     own, which the report words itself, naming the dependency.
  package static func run(
    _ roots: [Root],
    throwing: Bool,
    diagnose: (any Error) -> ForgeDiagnostic? = { _ in nil }
  ) -> ValidationReport {
    var findings = Findings()
    if throwing {
      var built = Built()
      for root in roots where !built.covers(root) {
        let session = ValidationSession()
        resolve(root, in: session)
        findings.add(session, rootName: root.name, end: session.waitForEnd(), diagnose: diagnose)
        built.note(session)
      }
    } else {
      for (root, run) in zip(roots, runOnThreads(roots, scope: OverrideScope.current)) {
        findings.add(run.session, rootName: root.name, end: run.end, diagnose: diagnose)
      }
    }
    return findings.report()
  }

  /// Something to validate asynchronously: a name for messages and a
  /// resolution that may await.
  package struct AsyncRoot: Sendable {
    package let name: String
    package let resolve: @Sendable () async throws -> Void
    /// The root as a synchronous one, when it awaits nothing: in a dialect
    /// whose resolutions cannot throw, it runs as ``run(_:throwing:diagnose:)``
    /// runs it, on a thread of its own.
    let synchronous: Root?

    package init(name: String, resolve: @escaping @Sendable () async throws -> Void) {
      self.name = name
      self.resolve = resolve
      self.synchronous = nil
    }

    /// `root`, which awaits nothing.
    package init(synchronous root: Root) {
      self.name = root.name
      self.resolve = { try root.resolve() }
      self.synchronous = root
    }
  }

  /// Validates `roots` in order, awaiting what they await, and reports
  /// every problem.
  ///
  /// Each root runs in the calling task with a ``ValidationSession`` of
  /// its own as the task's, so that the builds its async factories run in
  /// tasks of their own belong to it too; while it runs, every resolution
  /// in the process takes the locked path. A failure the root throws
  /// (an async factory's, a cycle across awaits, any failure of a dialect
  /// whose resolutions throw, with `throwing`) ends its run. A dialect
  /// whose resolutions cannot throw runs a root that awaits nothing as
  /// ``run(_:throwing:diagnose:)`` does (on a ``RootRun``'s thread), and the others
  /// on a thread of the validation's own (``ValidationExecutor``, a new one
  /// after a root that failed), so that a synchronous failure
  /// inside an async factory parks that thread and ends the run, as on the
  /// thread of a synchronous root. (Where task executors are not available,
  /// before macOS 15 and iOS 18, and for a factory isolated to the main
  /// actor, which runs on the main thread, such a failure stops the
  /// program, as it would outside a validation.)
  package static func runAsync(
    _ roots: [AsyncRoot],
    throwing: Bool,
    diagnose: (any Error) -> ForgeDiagnostic? = { _ in nil }
  ) async -> ValidationReport {
    var findings = Findings()
    let scope = OverrideScope.current
    // The ValidationExecutor the async roots share while they succeed; one
    // that failed may have parked its thread, and the next root gets a new
    // one. (Untyped: the type needs macOS 15 and iOS 18.)
    var sharedExecutor: AnyObject?
    defer {
      if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
        (sharedExecutor as? ValidationExecutor)?.close()
      }
    }
    var built = Built()
    var index = roots.startIndex
    while index < roots.endIndex {
      let root = roots[index]
      if built.covers(root.synchronous) {
        index += 1
        continue
      }
      if root.synchronous != nil, !throwing {
        // Where a synchronous failure parks a thread, it is one of ours:
        // this root and the synchronous ones right after it run as
        // run(_:throwing:diagnose:) runs them.
        let stretch = roots[index...].prefix { $0.synchronous != nil }
        let runs = runOnThreads(stretch.compactMap(\.synchronous), scope: scope)
        for (root, run) in zip(stretch, runs) {
          findings.add(run.session, rootName: root.name, end: run.end, diagnose: diagnose)
        }
        index += stretch.count
        continue
      }
      index += 1
      let session = ValidationSession()
      ThreadRecords.moveScopeGate(by: Gates.taskBoundWeight)
      Gates.asyncValidations.add(1)
      let end: ValidationSession.End
      if !throwing, #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
        // On a thread of the validation's own, which a synchronous failure
        // may park; the run ends then, and its task stays suspended for good.
        let executor = sharedExecutor as? ValidationExecutor ?? ValidationExecutor()
        session.executor = executor
        Task(executorPreference: executor) { await run(root, in: session) }
        await session.ended()
        end = session.waitForEnd()
        if case .failed = end {
          executor.close()
          sharedExecutor = nil
        } else {
          sharedExecutor = executor
        }
      } else {
        await run(root, in: session)
        end = session.waitForEnd()
      }
      Gates.asyncValidations.add(-1)
      ThreadRecords.moveScopeGate(by: -Gates.taskBoundWeight)
      findings.add(session, rootName: root.name, end: end, diagnose: diagnose)
      built.note(session)
    }
    return findings.report()
  }

  /// Awaits `root` with `session` as the task's, then ends the run.
  private static func run(_ root: AsyncRoot, in session: ValidationSession) async {
    do {
      try await ValidationSession.$taskSession.withValue(session) { try await root.resolve() }
      session.finish()
    } catch {
      session.fail(error, chain: [])
    }
  }

  /// A factory's own error, thrown while `dependency` was being built: a
  /// builder's or an async factory's, in any dialect.
  static func factoryFailure(_ error: any Error, building dependency: String) -> ForgeDiagnostic {
    ForgeDiagnostic(
      .builderFailed,
      "Building \(dependency) threw \(TypeName.reflecting(error))",
      fix: "make what builds \(dependency) succeed, or handle the error where \(dependency) is resolved."
    )
  }

  /// Runs `roots`, each with a session of its own, in `scope`, on the
  /// threads of a ``RootRun``: one, and one more after each root that
  /// fails (its thread is parked). Returns each root's session and how its
  /// run ended, in order, once all have ended.
  private static func runOnThreads(
    _ roots: [Root],
    scope: OverrideScope?
  ) -> [(session: ValidationSession, end: ValidationSession.End)] {
    let sessions = roots.map { _ in ValidationSession() }
    let run = RootRun(
      zip(roots, sessions).map { root, session in
        {
          if let scope {
            OverrideScope.with(scope) { resolve(root, in: session) }
          } else {
            resolve(root, in: session)
          }
        }
      })
    if !roots.isEmpty { run.startThread() }
    return sessions.indices.map { index in
      let end = sessions[index].waitForEnd()
      if case .failed = end, index < sessions.count - 1 { run.startThread() }
      return (sessions[index], end)
    }
  }

  /// Resolves `root` on the calling thread with `session` in force, then
  /// reports how it ended. The dialects' resolutions cannot throw; only a
  /// root written to throw (ForgeInject's) ends in `fail` from here.
  private static func resolve(_ root: Root, in session: ValidationSession) {
    let context = ResolutionContext.current
    let previous = context.threadValidation
    context.threadValidation = session
    var failure: (any Error)?
    do {
      try root.resolve()
    } catch {
      failure = error
    }
    let chain = context.buildingSlots
    context.threadValidation = previous
    if let failure { session.fail(failure, chain: chain) } else { session.finish() }
  }

  /// Whether `holder`, kept with its lifetime, holding an instance kept
  /// with `held` outlives it: a reset that replaces the held instance
  /// leaves the holder with the old one (a captive dependency).
  ///
  /// | holder | captive when it holds |
  /// | --- | --- |
  /// | singleton | cached, weak, or custom-scoped |
  /// | cached | custom-scoped |
  /// | custom scope A | custom scope B, when clearing B leaves A (SwiftPod's hierarchy) |
  ///
  /// A transient holder lives as long as whoever asked for it; a transient
  /// held instance is the holder's own. Neither is flagged.
  package static func isCaptive(holder: Lifetime, held: Lifetime) -> Bool {
    switch (holder, held) {
    case (.singleton, .cached), (.singleton, .weak), (.singleton, .scoped): true
    case (.cached, .scoped): true
    case (.scoped(let a), .scoped(let b)): a != b && !ScopeNames.clearing(b, alsoClears: a)
    default: false
    }
  }
}
