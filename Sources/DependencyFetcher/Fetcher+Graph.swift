import ForgeCore

extension Fetcher {
  /// The services this fetcher has made so far, with what each one's
  /// closure fetched while making it; render it with
  /// `DependencyGraph/mermaid`, `DependencyGraph/dot` or
  /// `DependencyGraph/json`, or ask it who depends on what.
  ///
  /// ```swift
  /// let fetcher = Fetcher.createDefault()
  /// _ = fetcher.fetch(.userRepository)
  /// print(fetcher.dependencyGraph().json)
  /// ```
  ///
  /// Nodes are named by the service's name (its type unless it was given
  /// one).
  public func dependencyGraph() -> DependencyGraph {
    store.dependencyGraph()
  }
}
