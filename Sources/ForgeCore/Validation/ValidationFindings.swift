/// What the roots' sessions found, turned into a report.
///
/// Everything known of a slot sits in one record, found through one map
/// from the slot's identity: what a session attempted or built, its edges
/// (as records), whether an override served it and whether a problem is
/// about it. Kept in a map per fact, these cost a validation 5–11 % more
/// instructions, most of it hashing identities again and again.
struct Findings {
  var problems: [ValidationReport.Problem] = []
  var seen: Set<String> = []
  /// The members of each cycle reported.
  var seenCycles: Set<Set<String>> = []
  /// What is known of each slot met, at its ``position``.
  private var records: [Record] = []
  private var position: [ObjectIdentifier: Int] = [:]
  /// The records of the slots reached, in the order first reached: the
  /// report's nodes.
  private var order: [Int] = []
  /// Problems about a dependency no slot stands for (a missing
  /// registration), with the slot that asked for it.
  private var missing: [(name: String, requestedBy: AnySlot?)] = []

  private struct Record {
    /// Nil while the slot is known only by its identity (attempted).
    var slot: AnySlot?
    /// The slot's place among the report's nodes, once reached.
    var reached: Int?
    var lifetime: Lifetime?
    /// The records of what it was built with; nil when none was noted.
    var edges: [Int]?
    var isOverridden = false
    /// A problem is about it.
    var failed = false
    /// It was being built when a problem occurred.
    var affected = false
  }

  /// The record of the slot with `identity`, made if it is new.
  private mutating func record(_ identity: ObjectIdentifier) -> Int {
    if let index = position[identity] { return index }
    records.append(Record())
    position[identity] = records.count - 1
    return records.count - 1
  }

  /// The record of `slot`, made if it is new, knowing the slot.
  private mutating func record(_ slot: AnySlot) -> Int {
    let index = record(ObjectIdentifier(slot))
    if records[index].slot == nil { records[index].slot = slot }
    return index
  }

  private mutating func records(_ slots: [AnySlot]) -> [Int] { slots.map { record($0) } }

  /// Makes `slot` a node of the report, after those reached before it.
  @discardableResult
  private mutating func reach(_ slot: AnySlot) -> Int {
    let index = record(slot)
    if records[index].reached == nil {
      records[index].reached = order.count
      order.append(index)
    }
    return index
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
    for (identity, lifetime) in session.attempted {
      let index = record(identity)
      if records[index].lifetime == nil { records[index].lifetime = lifetime }
    }
    for build in session.builds {
      let index = record(build.slot)
      if records[index].lifetime == nil { records[index].lifetime = build.lifetime }
      // An async dependency's handle is built with no dependencies; its
      // async build, noted later, has them.
      if records[index].edges?.isEmpty ?? true { records[index].edges = records(build.dependencies) }
    }
    // Nodes in the order a reader follows them: from the root (the chain
    // being built when the run failed, or the last build to finish)
    // breadth-first along the edges, then whatever else was built.
    var chain: [AnySlot] = []
    if case .failed(_, let failedChain) = end { chain = failedChain }
    var frontier = chain.isEmpty ? session.builds.last.map { [record($0.slot)] } ?? [] : records(chain)
    while !frontier.isEmpty {
      var next: [Int] = []
      for index in frontier where records[index].reached == nil {
        // Every record an edge or a build names knows its slot.
        guard let slot = records[index].slot else { continue }
        reach(slot)
        next += records[index].edges ?? []
      }
      frontier = next
    }
    for build in session.builds {
      reach(build.slot)
      for dependency in build.dependencies { reach(dependency) }
    }
    for identity in session.overridden { records[record(identity)].isOverridden = true }
    checkLifetimes(session)
    guard case .failed(let error, _) = end else { return }
    var requested: String?
    if chain.isEmpty, let first = session.firstFailure {
      chain = first.chain
      requested = first.requested
      for slot in chain { reach(slot) }
    }
    for (outer, inner) in zip(chain, chain.dropFirst()) {
      let index = record(outer)
      if records[index].edges == nil { records[index].edges = [record(inner)] }
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
      let index = reach(slot)
      if slot.name == dependency {
        records[index].failed = true
      } else {
        records[index].affected = true
      }
    }
    if let failedSlot = session.failedSlot, let last = chain.last, failedSlot !== last {
      let index = record(last)
      if records[index].edges == nil { records[index].edges = [record(failedSlot)] }
    }
    if !involved.contains(where: { $0.name == dependency }) {
      // No slot stands for it (nothing is registered): a node of its own.
      missing.append((dependency, chain.last))
    }
  }

  mutating func checkLifetimes(_ session: ValidationSession) {
    // Only a build with dependencies can hold one kept for less long.
    guard session.builds.contains(where: { !$0.dependencies.isEmpty }) else { return }
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
        records[record(dependency)].failed = true
        records[record(build.slot)].affected = true
      }
    }
  }

  func report() -> ValidationReport {
    // A node's id is its place in the report: n1, n2, …, then the missing.
    func id(_ index: Int) -> String {
      guard let reached = records[index].reached else {
        fatalError("ForgeCore: \(ForgeDiagnostic.internalError("a graph edge names a slot that was never reached"))")
      }
      return GraphNumbering.nodeID(at: reached)
    }
    // Everything that depends, directly or not, on a failed node is affected.
    var dependents = [[Int]](repeating: [], count: records.count)
    for (from, record) in records.enumerated() {
      for target in record.edges ?? [] { dependents[target].append(from) }
    }
    // Per record: 0 not affected, 1 affected, 2 affected and followed.
    // Followed from every node met, marked before or not: what depends on a
    // node marked while it was built (a captive's holder) is affected too.
    var marks: [UInt8] = records.map { $0.affected ? 1 : 0 }
    var pending = order.filter { records[$0].failed }
    for requester in missing.compactMap(\.requestedBy) {
      // The requester was reached: it is the last of a failed chain.
      guard let index = position[ObjectIdentifier(requester)] else { continue }
      pending.append(index)
    }
    for index in pending { marks[index] = 2 }
    while let next = pending.popLast() {
      for dependent in dependents[next] where marks[dependent] != 2 {
        marks[dependent] = 2
        pending.append(dependent)
      }
    }
    var nodes: [DependencyGraph.Node] = []
    var graphEdges: [DependencyGraph.Edge] = []
    nodes.reserveCapacity(order.count + missing.count)
    for index in order {
      let record = records[index]
      // A reached record knows its slot.
      guard let slot = record.slot else { continue }
      nodes.append(
        DependencyGraph.Node(
          id: id(index), name: slot.name, type: slot.instanceTypeName, lifetime: record.lifetime?.graphName,
          isOverridden: record.isOverridden, isPreview: false,
          status: record.failed ? .failed : marks[index] != 0 ? .affected : .ok))
    }
    for index in order {
      for target in records[index].edges ?? [] {
        graphEdges.append(DependencyGraph.Edge(from: id(index), to: id(target)))
      }
    }
    for (offset, entry) in missing.enumerated() {
      let missingID = GraphNumbering.nodeID(at: order.count + offset)
      nodes.append(
        DependencyGraph.Node(
          id: missingID, name: entry.name, type: entry.name, lifetime: nil, isOverridden: false, status: .failed))
      if let requester = entry.requestedBy, let index = position[ObjectIdentifier(requester)] {
        graphEdges.append(DependencyGraph.Edge(from: id(index), to: missingID))
      }
    }
    return ValidationReport(
      problems: problems,
      checked: order.compactMap { records[$0].slot?.name } + missing.map(\.name),
      graph: DependencyGraph(nodes: nodes, edges: graphEdges)
    )
  }
}
