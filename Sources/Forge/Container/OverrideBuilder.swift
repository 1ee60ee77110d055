import ForgeCore

/// Collects the overrides of a `OverridableContainer/withOverrides(_:run:)`
/// call.
///
/// ```swift
/// AppContainer.shared.withOverrides {
///   $0.override(\.authService) { MockAuthService() }
///   $0.override(\.analytics) { MockAnalytics() }
/// } run: {
///   // both replacements apply here, for this task only
/// }
/// ```
public struct OverrideBuilder<C: Container>: Sendable {
  let container: C
  var entries: [OverrideScope.Target: AnyOverride] = [:]

  init(container: C) { self.container = container }

  /// Replaces the dependency at `keyPath` while the closure runs; `factory`
  /// runs on every resolution. A key path that cannot be overridden stops
  /// at `fileID` and `line`.
  public mutating func override<T>(
    _ keyPath: KeyPath<C, T>,
    with factory: @escaping @Sendable () -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let location = CodeLocation(fileID: fileID, line: line)
    let key = container.overrideKey(for: keyPath, at: location, placeholder: factory)
    let entry = container.store.makeOverride(key, name: container.dependencyName(key), make: factory)
    entries[entry.slot.target] = entry
  }
}
