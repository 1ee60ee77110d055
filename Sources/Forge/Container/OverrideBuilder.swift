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
    let entry = container.scopedOverride(keyPath, at: CodeLocation(fileID: fileID, line: line), with: factory)
    entries[entry.slot.target] = entry
  }
}

extension OverridableContainer {
  /// The override of the dependency at `keyPath` that a scope installs.
  func scopedOverride<T>(
    _ keyPath: KeyPath<Self, T>,
    at location: CodeLocation,
    with factory: @escaping @Sendable () -> T
  ) -> Override<T> {
    let (key, parkedRead) = overrideKey(for: keyPath, at: location)
    return store.makeOverride(key, name: dependencyName(key), parkedRead: parkedRead, make: factory)
  }
}

extension TestOverrides {
  /// Replaces the dependency at `keyPath` of `container` for the test, as
  /// ``OverrideBuilder/override(_:with:fileID:line:)-(KeyPath<C,T>,_,_,_)`` does in a
  /// `withOverrides` scope; `factory` runs on every resolution.
  ///
  /// ```swift
  /// @Test(.isolated(AppContainer.shared, pod) {
  ///   $0.override(\AppContainer.clock, in: .shared) { FixedClock() }
  ///   $0.overrideProvider(sessionProvider, in: pod) { _ in MockSession() }
  /// })
  /// func expiry() { … }
  /// ```
  public mutating func override<C: OverridableContainer, T>(
    _ keyPath: KeyPath<C, T>,
    in container: C,
    with factory: @escaping @Sendable () -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    add(container.scopedOverride(keyPath, at: CodeLocation(fileID: fileID, line: line), with: factory))
  }
}
