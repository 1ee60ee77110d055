import ForgeCore

/// The concrete container types, so that overrides can name their key paths
/// with `Self`. Every ``Container`` conforms; there is nothing to implement.
public protocol OverridableContainer: Container {}

extension Container: OverridableContainer {}

extension OverridableContainer {
  /// Replaces a dependency for every caller until ``removeOverride(for:)`` or
  /// ``Container/resetAll()``.
  ///
  /// The replacement applies even when the real instance was already built,
  /// and its factory runs on every resolution: overrides are never kept.
  ///
  /// ```swift
  /// // The composition root wires a feature module's proxy.
  /// SearchContainer.shared.override(\.analytics) { AppContainer.shared.analytics }
  /// ```
  ///
  /// Installing runs nothing you wrote: neither `factory` nor the real
  /// factory. Forge learns which dependency `keyPath` names by reading the
  /// property once per container type, on a thread of its own, where the
  /// read stops at its `provide(...)`; the first resolution the override
  /// serves lets that read finish with its value. A key path that cannot be
  /// overridden stops at `fileID` and `line`: one that resolves something
  /// else first (`\.service.network`) when it is installed, one whose
  /// property calls `provide(...)` twice at its first resolution, before
  /// that resolution returns. A property's key must not depend on the
  /// container instance: every container of a type uses the key its first
  /// read found.
  ///
  /// Inside a test that isolates the container (ForgeTesting), the
  /// replacement is the test's: it serves that test only, until
  /// ``removeOverride(for:)``, ``Container/resetAll()`` or the end of the test.
  public func override<T>(
    _ keyPath: KeyPath<Self, T>,
    with factory: @escaping @Sendable () -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let (key, parkedRead) = overrideKey(for: keyPath, at: CodeLocation(fileID: fileID, line: line))
    store.setOverride(key, name: dependencyName(key), parkedRead: parkedRead, make: factory)
  }

  /// Removes the override installed with ``override(_:with:fileID:line:)-(KeyPath<Self,T>,_,_,_)``; the instance
  /// kept before it, if any, is used again.
  ///
  /// ```swift
  /// container.removeOverride(for: \.authService)
  /// ```
  ///
  /// Inside a test that isolates the container (ForgeTesting), it removes
  /// the test's override of the property, whether the test installed it
  /// or declared it in its trait, for the rest of that test only.
  public func removeOverride<T>(for keyPath: KeyPath<Self, T>) {
    guard let key = store.discoveredKey(for: keyPath) else { return }
    store.removeOverride(key)
  }

  /// Runs `body` with the overrides `configure` declares, for the current
  /// task only, and removes them when `body` returns or throws.
  ///
  /// Tests running in parallel can each override the same shared container
  /// without seeing each other's replacements. Instances built inside `body`
  /// from an overridden dependency are not kept in the container afterwards.
  ///
  /// ```swift
  /// try AppContainer.shared.withOverrides {
  ///   $0.override(\.authService) { MockAuthService() }
  /// } run: {
  ///   #expect(LoginViewModel().canLogIn)
  /// }
  /// ```
  public func withOverrides(
    _ configure: (inout OverrideBuilder<Self>) -> Void,
    run body: () throws -> Void
  ) rethrows {
    try OverrideScope.with(overrideScope(configure), operation: body)
  }

  /// Runs `body` with the overrides `configure` declares, for the current
  /// task only, and returns what `body` returns.
  ///
  /// ```swift
  /// let canLogIn = AppContainer.shared.withOverrides {
  ///   $0.override(\.authService) { MockAuthService() }
  /// } run: {
  ///   LoginViewModel().canLogIn
  /// }
  /// ```
  public func withOverrides<Result>(
    _ configure: (inout OverrideBuilder<Self>) -> Void,
    run body: () throws -> Result
  ) rethrows -> Result {
    try OverrideScope.with(overrideScope(configure), operation: body)
  }

  /// Runs the asynchronous `body` with the overrides `configure` declares, for
  /// the current task only, and removes them when `body` returns or throws.
  ///
  /// ```swift
  /// try await AppContainer.shared.withOverrides {
  ///   $0.override(\.authService) { mock }
  /// } run: {
  ///   await LoginViewModel().login(username: "user", password: "pass")
  /// }
  /// ```
  nonisolated(nonsending)
    public func withOverrides(
      _ configure: (inout OverrideBuilder<Self>) -> Void,
      run body: () async throws -> Void
    ) async rethrows
  {
    try await OverrideScope.with(overrideScope(configure), operation: body)
  }

  /// Runs the asynchronous `body` with the overrides `configure` declares, for
  /// the current task only, and returns what `body` returns.
  ///
  /// ```swift
  /// let loggedIn = await AppContainer.shared.withOverrides {
  ///   $0.override(\.authService) { mock }
  /// } run: {
  ///   let viewModel = LoginViewModel()
  ///   await viewModel.login(username: "user", password: "pass")
  ///   return viewModel.isLoggedIn
  /// }
  /// ```
  nonisolated(nonsending)
    public func withOverrides<Result>(
      _ configure: (inout OverrideBuilder<Self>) -> Void,
      run body: () async throws -> Result
    ) async rethrows -> Result
  {
    try await OverrideScope.with(overrideScope(configure), operation: body)
  }

  private func overrideScope(_ configure: (inout OverrideBuilder<Self>) -> Void) -> OverrideScope {
    var builder = OverrideBuilder(container: self)
    configure(&builder)
    return OverrideScope(parent: OverrideScope.current, entries: builder.entries)
  }

  /// The `provide` key behind `keyPath`, learned by reading the property on
  /// a thread of its own, where the read parks at its `provide` (see
  /// `ParkedKeyRead`): no factory runs for it. While that read waits for a
  /// value, it comes too, for the override to hand its first one over.
  func overrideKey<T>(
    for keyPath: KeyPath<Self, T>,
    at location: CodeLocation
  ) -> (key: DeclarationKey, parkedRead: ParkedKeyRead?) {
    func request() -> String { "a \(String(describing: Self.self)) key path of type \(TypeName.of(T.self))" }
    // Sendable: a key path names a property, and this container is Sendable.
    nonisolated(unsafe) let path = keyPath
    let discovered = store.discoverKey(
      alias: keyPath,
      readAlias: [AnyHashable(keyPath), AnyHashable(ObjectIdentifier(type(of: self)))],
      request: request(),
      location: location,
      as: T.self
    ) { [self] in
      self[keyPath: path]
    }
    guard let discovered else {
      let diagnostic = ForgeDiagnostic(
        .overrideNotProvided,
        "Cannot override \(request()): reading it did not call provide(...) on this container",
        reason: "Only properties declared with provide(...) in the container being overridden can be overridden.",
        fix: "declare the dependency with provide(...), or override it in the container that declares it."
      )
      fatalError("Forge: \(diagnostic)", file: location.fileID, line: location.line)
    }
    return (discovered.key, discovered.parked)
  }
}
