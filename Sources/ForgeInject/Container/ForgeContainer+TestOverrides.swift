import ForgeCore

extension TestOverrides {
  /// Registers `builder` for `T` in `container` for the test only, in
  /// place of its registration (or where it has none), kept as `policy`
  /// says, for that test.
  ///
  /// ```swift
  /// @Test(.isolated(container) {
  ///   $0.register(in: container, with: .singleton) { _ in FixedClock() as Clock }
  /// })
  /// func expiry() throws { … }
  /// ```
  public mutating func register<T>(
    in container: ForgeContainer,
    with policy: ForgeRetainPolicy,
    builder: @escaping @Sendable (ForgeContainerProtocol) throws -> T
  ) {
    add(container.override(T.self, with: policy, builder: builder))
  }

  /// Registers the `async` `builder` for `T` in `container` for the test
  /// only, in place of its async registration (or where it has none): a
  /// `resolveAsync()` in the test awaits it, kept as `policy` says, for
  /// that test.
  ///
  /// ```swift
  /// @Test(.isolated(container) {
  ///   $0.register(in: container, with: .singleton) { _ async in InMemoryDatabase() as Database }
  /// })
  /// func migration() async throws { … }
  /// ```
  public mutating func register<T: Sendable>(
    in container: ForgeContainer,
    with policy: ForgeRetainPolicy,
    builder: @escaping @Sendable (ForgeContainerProtocol) async throws -> T
  ) {
    add(container.asyncOverride(T.self, with: policy, builder: builder))
  }
}

extension ForgeContainer {
  /// The async registration of `T` for a test's scope (see `TestOverrides`).
  func asyncOverride<T: Sendable>(
    _ type: T.Type,
    with policy: ForgeRetainPolicy,
    builder: @escaping @Sendable (ForgeContainerProtocol) async throws -> T
  ) -> Override<AsyncDependency<T>> {
    store.makeOverride(
      Self.asyncKey(T.self), name: "\(TypeName.of(T.self)) (test)", lifetime: policy.lifetime.ofAsyncHandle,
      attachment: TestValidationRoot(awaiting: T.self, in: self),
      make: asyncHandles(of: builder, lifetime: policy.lifetime))
  }

  /// The registration of `T` for a test's scope (see `TestOverrides`).
  func override<T>(
    _ type: T.Type,
    with policy: ForgeRetainPolicy,
    builder: @escaping @Sendable (ForgeContainerProtocol) throws -> T
  ) -> Override<T> {
    // Unowned: the store holding this override belongs to this container.
    store.makeOverride(
      ObjectIdentifier(T.self), name: "\(TypeName.of(T.self)) (test)", lifetime: policy.lifetime,
      attachment: TestValidationRoot(synchronous: T.self, in: self)
    ) { [unowned self] in try builder(self) }
  }
}
