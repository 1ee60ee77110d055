import ForgeCore

extension ForgeContainer {
  /// The types this container has resolved so far, with what each one's
  /// builder resolved while building it; render it with
  /// `DependencyGraph/mermaid`, `DependencyGraph/dot` or
  /// `DependencyGraph/json`, or ask it who depends on what.
  ///
  /// ```swift
  /// let container = ForgeContainer()
  /// container.register(with: .singleton) { _ in URLSessionClient() as HTTPClient }
  /// container.register { c in UserService(client: try c.resolve()) }
  /// _ = try container.resolve() as UserService
  /// print(container.dependencyGraph().dot)
  /// ```
  ///
  /// Nodes are named by the registered type.
  public func dependencyGraph() -> DependencyGraph {
    store.dependencyGraph()
  }
}
