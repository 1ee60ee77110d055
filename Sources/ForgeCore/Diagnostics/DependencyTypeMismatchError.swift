/// A dependency whose factory produced a value of another type than the one
/// it is resolved as.
///
/// Usually two declarations share one key by accident (two `provide` calls
/// with the same explicit `key:`, say), or a factory returns a concrete type
/// where the property declares another.
///
/// ```swift
/// // var title: String { provide(key: "shared") { "Forge" } }
/// // var count: Int { provide(key: "shared") { 1 } }   // same key, other type
/// ```
public struct DependencyTypeMismatchError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The dependency as the user spelled it.
  public let dependency: String
  /// The type the caller asked for.
  public let expected: String
  /// The type the factory or the existing slot produced.
  public let actual: String
  /// The chain of dependencies under construction when it happened, outermost first.
  public let chain: [String]

  public init(dependency: String, expected: String, actual: String, chain: [String]) {
    self.dependency = dependency
    self.expected = expected
    self.actual = actual
    self.chain = chain
  }

  /// The failure in the form every Forge module reports it.
  public var diagnostic: ForgeDiagnostic {
    ForgeDiagnostic(
      .typeMismatch,
      "Type mismatch resolving \(dependency): expected \(expected), but it produces \(actual)",
      // Thrown while the dependency itself is being built, the chain may
      // end with it already.
      chain: chain.last == dependency ? chain : chain + [dependency],
      fix: "give each declaration its own key, or make the factory return \(expected)."
    )
  }

  public var description: String { diagnostic.description }
}
