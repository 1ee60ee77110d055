import ForgeCore

extension Container {
  /// The dependencies this container has resolved so far, with what each
  /// one's factory resolved while building it; render it with
  /// `DependencyGraph/mermaid`, `DependencyGraph/dot` or
  /// `DependencyGraph/json`, or ask it who depends on what.
  ///
  /// ```swift
  /// _ = AppContainer.shared.loginViewModel   // resolve what you want to see
  /// let graph = AppContainer.shared.dependencyGraph()
  /// print(graph.mermaid)
  /// graph.dependents(of: "AppContainer.network").map(\.name)
  /// ```
  ///
  /// Nodes are named `Container.property`; dependencies of other containers
  /// that this one's factories resolved are included.
  public func dependencyGraph() -> DependencyGraph {
    store.dependencyGraph()
  }
}
