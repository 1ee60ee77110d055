import ForgeCore

extension Container {
  /// Declares a dependency whose factory is `async`: the property hands out
  /// an ``AsyncDependency``, and its instance is read with `await`.
  ///
  /// However many tasks first await a kept dependency at the same time,
  /// `factory` runs once; a factory that throws keeps nothing, and the next
  /// read builds again. The factory may read synchronous dependencies and
  /// await other async ones.
  ///
  /// ```swift
  /// extension AppContainer {
  ///   var database: AsyncDependency<Database> {
  ///     provide(.singleton) { try await Database.open(logger: self.logger) }
  ///   }
  /// }
  ///
  /// let database = try await AppContainer.shared.database.value
  /// ```
  ///
  /// - Parameters:
  ///   - scope: how long the instance built by `factory` is kept.
  ///   - key: identifies the dependency in this container, together with
  ///     the file it is declared in; defaults to the calling property's name.
  ///   - fileID: the declaring file; leave the default.
  ///   - line: the declaring line; leave the default.
  ///   - factory: builds the instance.
  ///   - preview: builds the instance in Xcode Previews; never kept.
  public func provide<T: Sendable>(
    _ scope: Scope = .transient,
    key: String = #function,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> T,
    preview: (@Sendable () async throws -> T)? = nil
  ) -> AsyncDependency<T> {
    let declaration = DeclarationKey(key, file: fileID, line: line)
    let handle = { (factory: @escaping @Sendable () async throws -> T) in
      self.asyncHandle(declaration, lifetime: scope.lifetime, factory: factory)
    }
    return provide(
      scope, key: key, fileID: fileID, line: line, { handle(factory) },
      preview: preview.map { preview in { handle(preview) } })
  }

  /// A handle of the async dependency declared by `key`, whose instances
  /// `factory` builds.
  func asyncHandle<T: Sendable>(
    _ key: DeclarationKey,
    lifetime: Lifetime,
    factory: @escaping @Sendable () async throws -> T
  ) -> AsyncDependency<T> {
    AsyncDependency(
      name: dependencyName(key),
      identity: AsyncDependencyIdentity(store: store, key: key),
      lifetime: lifetime,
      factory: factory
    )
  }
}

extension OverridableContainer {
  /// Replaces an async dependency for every caller until
  /// ``removeOverride(for:)`` or ``Container/resetAll()``; like a synchronous
  /// override, it is never kept: each resolution of the property gets a
  /// handle whose instance `factory` builds.
  ///
  /// ```swift
  /// container.override(\.database) { InMemoryDatabase() }
  /// let database = try await container.database.value
  /// ```
  public func override<T: Sendable>(
    _ keyPath: KeyPath<Self, AsyncDependency<T>>,
    with factory: @escaping @Sendable () async throws -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    override(keyPath, with: asyncOverride(keyPath, factory), fileID: fileID, line: line)
  }

  /// The synchronous override factory that hands out handles of `factory`.
  func asyncOverride<T: Sendable>(
    _ keyPath: KeyPath<Self, AsyncDependency<T>>,
    _ factory: @escaping @Sendable () async throws -> T
  ) -> @Sendable () -> AsyncDependency<T> {
    let name = "\(String(describing: Self.self)).\(keyPath) (override)"
    let identity = ObjectIdentifier(keyPath)
    return { AsyncDependency(name: name, identity: AnyHashable(identity), lifetime: .transient, factory: factory) }
  }
}

extension OverrideBuilder {
  /// Replaces the async dependency at `keyPath` while the closure runs;
  /// each resolution gets a handle whose instance `factory` builds.
  public mutating func override<T: Sendable>(
    _ keyPath: KeyPath<C, AsyncDependency<T>>,
    with factory: @escaping @Sendable () async throws -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    override(keyPath, with: container.asyncOverride(keyPath, factory), fileID: fileID, line: line)
  }
}
