/// A dependency that, to be built, needs itself.
///
/// The engine keeps the chain of dependencies under construction on each
/// thread; when a factory asks for a dependency that is already in that chain,
/// the engine stops with this error instead of recursing until the stack
/// overflows or waiting on itself forever.
///
/// ```swift
/// do {
///   let service: A = try container.resolve()
/// } catch let cycle as DependencyCycleError {
///   print(cycle.path)  // ["A", "B", "A"]
/// }
/// ```
public struct DependencyCycleError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Every dependency on the cycle in resolution order; the first and the last
  /// element name the same dependency.
  public let path: [String]

  /// Creates the error for a cycle that runs through `path`.
  public init(path: [String]) { self.path = path }

  /// The path as `a → b → a`.
  public var renderedPath: String { path.joined(separator: " → ") }

  /// The failure in the form every Forge module reports it.
  public var diagnostic: ForgeDiagnostic {
    let start = path.first ?? "?"
    return ForgeDiagnostic(
      .cycle,
      "Dependency cycle: \(renderedPath)",
      reason: "Building \(start) needs \(start) itself, so it can never be built.",
      fix: """
        remove one edge of the cycle: inject a factory or a lazily resolved dependency \
        instead of the instance, or move the shared state into a third dependency that \
        both sides use.
        """
    )
  }

  public var description: String { diagnostic.description }
}
