/// What `validate()` found: every problem, each as a diagnostic with its
/// chain, and the graph validation built, with the broken nodes marked.
///
/// ```swift
/// let report = container.validate(\.loginViewModel, \.settingsViewModel)
/// #expect(report.isValid, "\(report)")
/// print(report)                       // one line per problem
/// print(report.graph.mermaid)         // failing nodes red, their dependents orange
/// ```
public struct ValidationReport: Sendable, CustomStringConvertible {
  /// One problem: a diagnostic in the form every Forge module reports
  /// failures in, whose `chain` leads from what was validated to the
  /// dependency at fault.
  public struct Problem: Sendable, Hashable, CustomStringConvertible {
    /// The failure, with its stable identifier, chain, reason and fix.
    public let diagnostic: ForgeDiagnostic
    /// The dependency the problem is about (the one missing, closing the
    /// cycle, of the wrong type, whose builder threw, or held too long).
    public let dependency: String

    /// The kind of problem (`.cycle`, `.missing`, `.lifetimeMismatch`, …).
    public var id: ForgeDiagnostic.ID { diagnostic.id }
    /// From what was validated to ``dependency``.
    public var chain: [String] { diagnostic.chain }

    public init(diagnostic: ForgeDiagnostic, dependency: String) {
      self.diagnostic = diagnostic
      self.dependency = dependency
    }

    public var description: String { diagnostic.description }
  }

  /// Every problem, in the order validation found them; each only once.
  public let problems: [Problem]
  /// The dependencies validation reached, named as messages name them.
  public let checked: [String]
  /// What validation built, with ``DependencyGraph/Node/status`` marking
  /// each problem's dependency `.failed` and what depends on it `.affected`.
  public let graph: DependencyGraph

  public init(problems: [Problem], checked: [String], graph: DependencyGraph) {
    self.problems = problems
    self.checked = checked
    self.graph = graph
  }

  /// Whether validation found nothing wrong.
  public var isValid: Bool { problems.isEmpty }

  /// The problems of one kind.
  ///
  /// ```swift
  /// #expect(report.problems(.cycle).map(\.dependency) == ["Feed.store"])
  /// ```
  public func problems(_ id: ForgeDiagnostic.ID) -> [Problem] {
    problems.filter { $0.id == id }
  }

  /// A summary line, then one line per problem.
  ///
  /// ```text
  /// Validation found 2 problems in 7 dependencies:
  /// - [Forge.cycle] Dependency cycle: … To fix it, …
  /// - [Forge.lifetimeMismatch] … To fix it, …
  /// ```
  public var description: String {
    let dependencies = checked.count == 1 ? "1 dependency" : "\(checked.count) dependencies"
    guard !problems.isEmpty else { return "Validation found no problem in \(dependencies).\n" }
    let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
    return "Validation found \(count) in \(dependencies):\n" + problems.map { "- \($0)\n" }.joined()
  }
}
