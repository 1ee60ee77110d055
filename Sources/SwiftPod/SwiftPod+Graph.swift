import ForgeCore

extension SwiftPod {
  /// The providers this pod has resolved so far, with what each one's
  /// builder resolved while building it; render it with
  /// `DependencyGraph/mermaid`, `DependencyGraph/dot` or
  /// `DependencyGraph/json`, or ask it who depends on what.
  ///
  /// ```swift
  /// let pod = SwiftPod()
  /// _ = pod.resolve(dataServiceProvider)
  /// print(pod.dependencyGraph().mermaid)
  /// ```
  ///
  /// Nodes are named by the provider's name (its type unless it was given
  /// one); a custom scope is named by its type.
  public func dependencyGraph() -> DependencyGraph {
    store.dependencyGraph()
  }
}
