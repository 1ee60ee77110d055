import ForgeCore

/// Graphs, observers and ForgeTesting's isolation (see ForgeCore's
/// `DependencyContainer`).
extension Fetcher: DependencyContainer {
  public var engine: ForgeEngine { ForgeEngine(store) }
}
