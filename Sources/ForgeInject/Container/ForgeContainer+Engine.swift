import ForgeCore

/// Graphs, observers and ForgeTesting's isolation (see ForgeCore's
/// `DependencyContainer`).
extension ForgeContainer: DependencyContainer {
  public var engine: ForgeEngine { ForgeEngine(store) }
}
