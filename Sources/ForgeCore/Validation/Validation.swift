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
      Gates.activeOverrideScopes.add(Gates.taskBoundWeight)
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
      Gates.activeOverrideScopes.add(-Gates.taskBoundWeight)
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

/// What the roots' sessions found, turned into a report.
private struct Findings {
  var problems: [ValidationReport.Problem] = []
  var seen: Set<String> = []
  /// The members of each cycle reported.
  var seenCycles: Set<Set<String>> = []
  /// Every slot reached, in the order first reached.
  var order: [AnySlot] = []
  var index: [ObjectIdentifier: Int] = [:]
  var lifetimes: [ObjectIdentifier: Lifetime] = [:]
  var edges: [ObjectIdentifier: [AnySlot]] = [:]
  var overridden: Set<ObjectIdentifier> = []
  /// Slots a problem is about, and slots being built when one occurred.
  var failed: Set<ObjectIdentifier> = []
  var affected: Set<ObjectIdentifier> = []
  /// Problems about a dependency no slot stands for (a missing
  /// registration), with the slot that asked for it.
  var missing: [(name: String, requestedBy: AnySlot?)] = []

  mutating func reach(_ slot: AnySlot) {
    let identity = ObjectIdentifier(slot)
    guard index[identity] == nil else { return }
    index[identity] = order.count
    order.append(slot)
  }

  mutating func note(_ problem: ValidationReport.Problem) {
    if seen.insert(problem.description).inserted { problems.append(problem) }
  }

  mutating func add(
    _ session: ValidationSession,
    rootName: String,
    end: ValidationSession.End,
    diagnose: (any Error) -> ForgeDiagnostic?
  ) {
    for (identity, lifetime) in session.attempted where lifetimes[identity] == nil { lifetimes[identity] = lifetime }
    for build in session.builds {
      let identity = ObjectIdentifier(build.slot)
      if lifetimes[identity] == nil { lifetimes[identity] = build.lifetime }
      // An async dependency's handle is built with no dependencies; its
      // async build, noted later, has them.
      if edges[identity]?.isEmpty ?? true { edges[identity] = build.dependencies }
    }
    // Nodes in the order a reader follows them: from the root (the chain
    // being built when the run failed, or the last build to finish)
    // breadth-first along the edges, then whatever else was built.
    var chain: [AnySlot] = []
    if case .failed(_, let failedChain) = end { chain = failedChain }
    var frontier = chain.isEmpty ? session.builds.last.map { [$0.slot] } ?? [] : chain
    while !frontier.isEmpty {
      var next: [AnySlot] = []
      for slot in frontier where index[ObjectIdentifier(slot)] == nil {
        reach(slot)
        next += edges[ObjectIdentifier(slot)] ?? []
      }
      frontier = next
    }
    for build in session.builds {
      reach(build.slot)
      for dependency in build.dependencies { reach(dependency) }
    }
    overridden.formUnion(session.overridden)
    checkLifetimes(session)
    guard case .failed(let error, _) = end else { return }
    var requested: String?
    if chain.isEmpty, let first = session.firstFailure {
      chain = first.chain
      requested = first.requested
      for slot in chain { reach(slot) }
    }
    for (outer, inner) in zip(chain, chain.dropFirst()) where edges[ObjectIdentifier(outer)] == nil {
      edges[ObjectIdentifier(outer)] = [inner]
    }
    let names = chain.map(\.name) + (requested.map { [$0] } ?? [])
    // A factory's own error (a builder's, an async factory's) is about the
    // innermost dependency being built when it was thrown.
    var diagnostic =
      diagnose(error) ?? ForgeDiagnostic.ofEngineError(error)
      ?? Validation.factoryFailure(error, building: names.last ?? rootName)
    if diagnostic.chain.isEmpty, names.count > 1 {
      diagnostic = ForgeDiagnostic(
        diagnostic.id, diagnostic.summary, chain: names, reason: diagnostic.reason, fix: diagnostic.fix)
    }
    let dependency: String =
      if let cycle = error as? DependencyCycleError { cycle.path.first ?? rootName } else {
        diagnostic.chain.last ?? names.last ?? rootName
      }
    // One cycle reached from each of its members is one problem.
    if let cycle = error as? DependencyCycleError, !seenCycles.insert(Set(cycle.path)).inserted { return }
    note(ValidationReport.Problem(diagnostic: diagnostic, dependency: dependency))
    // The dependency at fault is red; what was being built around it orange.
    let involved = chain + (session.failedSlot.map { [$0] } ?? [])
    for slot in involved {
      reach(slot)
      if slot.name == dependency {
        failed.insert(ObjectIdentifier(slot))
      } else {
        affected.insert(ObjectIdentifier(slot))
      }
    }
    if let failedSlot = session.failedSlot, let last = chain.last, failedSlot !== last,
      edges[ObjectIdentifier(last)] == nil
    {
      edges[ObjectIdentifier(last)] = [failedSlot]
    }
    if !involved.contains(where: { $0.name == dependency }) {
      // No slot stands for it (nothing is registered): a node of its own.
      missing.append((dependency, chain.last))
    }
  }

  mutating func checkLifetimes(_ session: ValidationSession) {
    var built: [ObjectIdentifier: Lifetime] = [:]
    for build in session.builds where built[ObjectIdentifier(build.slot)] == nil {
      built[ObjectIdentifier(build.slot)] = build.lifetime
    }
    for build in session.builds {
      for dependency in build.dependencies {
        let identity = ObjectIdentifier(dependency)
        guard !session.overridden.contains(identity), let held = built[identity],
          Validation.isCaptive(holder: build.lifetime, held: held)
        else { continue }
        let holder = "\(build.slot.name) (\(build.lifetime.graphName))"
        let heldName = "\(dependency.name) (\(held.graphName))"
        note(
          ValidationReport.Problem(
            diagnostic: ForgeDiagnostic(
              .lifetimeMismatch,
              "\(holder) holds \(heldName), which is kept for less long",
              chain: [build.slot.name, dependency.name],
              reason: """
                A reset that replaces \(dependency.name) leaves \(build.slot.name) holding the \
                old instance, so the two disagree from then on.
                """,
              fix: """
                give \(build.slot.name) a lifetime no longer than \(held.graphName), keep \
                \(dependency.name) as long as \(build.lifetime.graphName), or have \
                \(build.slot.name) resolve \(dependency.name) each time it needs it instead of \
                holding it.
                """
            ),
            dependency: dependency.name
          ))
        failed.insert(identity)
        affected.insert(ObjectIdentifier(build.slot))
      }
    }
  }

  func report() -> ValidationReport {
    var numbering = GraphNumbering()
    for slot in order { numbering.number(slot) }
    // Everything that depends, directly or not, on a failed node is affected.
    var dependents: [ObjectIdentifier: [ObjectIdentifier]] = [:]
    for (from, targets) in edges {
      for target in targets { dependents[ObjectIdentifier(target), default: []].append(from) }
    }
    var affected = self.affected
    var pending = order.map(ObjectIdentifier.init).filter { failed.contains($0) }
    pending += missing.compactMap { $0.requestedBy.map(ObjectIdentifier.init) }
    for requester in missing.compactMap(\.requestedBy) { affected.insert(ObjectIdentifier(requester)) }
    while let next = pending.popLast() {
      for dependent in dependents[next] ?? [] where affected.insert(dependent).inserted { pending.append(dependent) }
    }
    var nodes = order.map { slot in
      let identity = ObjectIdentifier(slot)
      return numbering.node(
        slot,
        lifetime: lifetimes[identity],
        isOverridden: overridden.contains(identity),
        status: failed.contains(identity) ? .failed : affected.contains(identity) ? .affected : .ok
      )
    }
    var graphEdges: [DependencyGraph.Edge] = []
    for slot in order {
      for target in edges[ObjectIdentifier(slot)] ?? [] { graphEdges.append(numbering.edge(slot, target)) }
    }
    for (offset, entry) in missing.enumerated() {
      let id = numbering.id(afterSlots: offset)
      nodes.append(
        DependencyGraph.Node(
          id: id, name: entry.name, type: entry.name, lifetime: nil, isOverridden: false, status: .failed))
      if let requester = entry.requestedBy {
        graphEdges.append(DependencyGraph.Edge(from: numbering.id(of: requester), to: id))
      }
    }
    return ValidationReport(
      problems: problems,
      checked: order.map(\.name) + missing.map(\.name),
      graph: DependencyGraph(nodes: nodes, edges: graphEdges)
    )
  }
}
