import ForgeCore

/// Graphs, observers and ForgeTesting's isolation (see ForgeCore's
/// `DependencyContainer`).
extension Container: DependencyContainer {
  public var engine: ForgeEngine { ForgeEngine(store) }
}

extension OverridableContainer {
  /// The entries of a `withOverrides` scope that `configure` declares, for
  /// ForgeTesting's trait.
  package func overrideEntries(
    _ configure: (inout OverrideBuilder<Self>) -> Void
  ) -> [OverrideScope.Target: AnyOverride] {
    var builder = OverrideBuilder(container: self)
    configure(&builder)
    return builder.entries
  }
}
