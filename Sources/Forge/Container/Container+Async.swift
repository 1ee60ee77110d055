import ForgeCore

extension Container {
  /// Declares a dependency whose factory is `async`: the property hands out
  /// an `AsyncDependency`, and its instance is read with `await`.
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
  @inlinable @inline(__always)
  public func provide<T: Sendable>(
    _ scope: Scope = .transient,
    key: String = #function,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ factory: @escaping @Sendable () async throws -> T,
    preview: (@Sendable () async throws -> T)? = nil
  ) -> AsyncDependency<T> {
    let declaration = DeclarationKey(key, file: fileID, line: line)
    if let read = publishedRead(scope, declaration, hasPreview: preview != nil, as: AsyncDependency<T>.self) {
      return read.take(AsyncDependency<T>.self).supplying(factory)
    }
    return provideAsyncResolving(scope, key: declaration, preview: preview).supplying(factory)
  }

  /// The published read of the kept handle of `declaration`, when it
  /// finds one; the caller hands out a copy with its own factory and ends
  /// the read. Inlinable, like the synchronous `provide`: a kept handle is
  /// one published read in the caller.
  @inlinable @inline(__always)
  final func publishedRead<Handle>(
    _ scope: Scope,
    _ declaration: DeclarationKey,
    hasPreview: Bool,
    as type: Handle.Type
  ) -> PublishedRead? {
    guard scope != .transient, !hasPreview || !PreviewMode.mightBeActive else { return nil }
    return store.beginPublishedRead(bits: declaration.identityBits, as: Handle.self, comparingType: true)
  }

  /// The async `provide` past the published read, out of line.
  @usableFromInline
  final func provideAsyncResolving<T: Sendable>(
    _ scope: Scope,
    key: DeclarationKey,
    preview: (@Sendable () async throws -> T)?
  ) -> AsyncDependency<T> {
    // The handle the container keeps has no factory: each read hands one
    // out with the factory of its own `provide` call (a preview's handle,
    // never kept, keeps its preview factory, which wins).
    let lifetime = scope.lifetime
    return provideResolving(
      scope, key: key, { self.asyncHandle(key, lifetime: lifetime, factory: nil as (@Sendable () async throws -> T)?) },
      preview: preview.map { preview in { self.asyncHandle(key, lifetime: .transient, factory: preview) } })
  }

  /// The async `provide(_:key:fileID:line:_:preview:)` for a factory
  /// that does not await (a stand-in, say): the property is still read with
  /// `await`.
  ///
  /// Without this overload, a factory that does not await would fit the
  /// synchronous `provide`, whose factory returns `Any`, and the property
  /// would stop with a type mismatch.
  ///
  /// ```swift
  /// var clock: AsyncDependency<Clock> { provide(.singleton) { SystemClock() } }
  /// ```
  @inlinable @inline(__always)
  public func provide<T: Sendable>(
    _ scope: Scope = .transient,
    key: String = #function,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ factory: @escaping @Sendable () throws -> T,
    preview: (@Sendable () throws -> T)? = nil
  ) -> AsyncDependency<T> {
    // Inlinable: a kept handle is one published read in the caller. The
    // preview is synchronous too: an async-typed one would make a sync
    // preview closure prefer the synchronous `provide`, whose factories
    // return `Any`, and the property would stop with a type mismatch.
    let declaration = DeclarationKey(key, file: fileID, line: line)
    if let read = publishedRead(scope, declaration, hasPreview: preview != nil, as: AsyncDependency<T>.self) {
      return read.take(AsyncDependency<T>.self).supplying(sync: factory)
    }
    let asyncPreview: (@Sendable () async throws -> T)? = preview.map { preview in { @Sendable in try preview() } }
    return provideAsyncResolving(scope, key: declaration, preview: asyncPreview).supplying(sync: factory)
  }

  /// Declares a dependency whose factory runs on the main actor: read its
  /// `MainActorDependency.value` synchronously on the main actor, and with
  /// `await` anywhere else.
  ///
  /// ```swift
  /// extension AppContainer {
  ///   var settings: MainActorDependency<SettingsViewModel> {
  ///     provide(.singleton) { @MainActor in SettingsViewModel() }
  ///   }
  /// }
  /// ```
  @inlinable @inline(__always)
  public func provide<T>(
    _ scope: Scope = .transient,
    key: String = #function,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ factory: @escaping @MainActor @Sendable () -> T
  ) -> MainActorDependency<T> {
    // Inlinable: a kept handle is one published read in the caller.
    let declaration = DeclarationKey(key, file: fileID, line: line)
    if let read = publishedRead(scope, declaration, hasPreview: false, as: MainActorDependency<T>.self) {
      return read.takeMainActorHandle(supplying: factory)
    }
    return provideMainActorResolving(scope, key: key, fileID: fileID, line: line).supplying(factory)
  }

  /// The main-actor `provide` past the published read, out of line.
  @usableFromInline
  final func provideMainActorResolving<T>(
    _ scope: Scope,
    key: String,
    fileID: StaticString,
    line: UInt
  ) -> MainActorDependency<T> {
    let declaration = DeclarationKey(key, file: fileID, line: line)
    let lifetime = scope.lifetime
    // The handle the container keeps has no factory (it captures the
    // container): each read hands one out with its own.
    return provide(scope, key: key, fileID: fileID, line: line) {
      MainActorDependency<T>(
        name: self.dependencyName(declaration),
        identity: AsyncDependencyIdentity(store: self.store, key: declaration),
        lifetime: lifetime,
        factory: nil,
        stopSite: StopSite(dialect: "Forge", location: CodeLocation(fileID: fileID, line: line))
      )
    }
  }

  /// A handle of the async dependency declared by `key`, whose instances
  /// `factory` builds.
  func asyncHandle<T: Sendable>(
    _ key: DeclarationKey,
    lifetime: Lifetime,
    factory: (@Sendable () async throws -> T)?
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

extension OverridableContainer {
  /// Replaces a main-actor dependency for every caller until
  /// ``removeOverride(for:)``; each resolution of the property gets a
  /// handle whose instance `factory` builds on the main actor.
  ///
  /// ```swift
  /// container.override(\.settings) { @MainActor in SettingsViewModel(preview: true) }
  /// ```
  public func override<T>(
    _ keyPath: KeyPath<Self, MainActorDependency<T>>,
    with factory: @escaping @MainActor @Sendable () -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let name = "\(String(describing: Self.self)).\(keyPath) (override)"
    let identity = ObjectIdentifier(keyPath)
    override(
      keyPath,
      with: {
        MainActorDependency(
          name: name, identity: AnyHashable(identity), lifetime: .transient, factory: factory,
          stopSite: StopSite(dialect: "Forge", location: CodeLocation(fileID: fileID, line: line)))
      },
      fileID: fileID, line: line)
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

extension TestOverrides {
  /// Replaces the async dependency at `keyPath` of `container` for the
  /// test; each resolution gets a handle whose instance `factory` builds.
  ///
  /// ```swift
  /// @Test(.isolated(AppContainer.shared) {
  ///   $0.override(\AppContainer.database, in: .shared) { InMemoryDatabase() }
  /// })
  /// func migration() async throws { … }
  /// ```
  public mutating func override<C: OverridableContainer, T: Sendable>(
    _ keyPath: KeyPath<C, AsyncDependency<T>>,
    in container: C,
    with factory: @escaping @Sendable () async throws -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    override(keyPath, in: container, with: container.asyncOverride(keyPath, factory), fileID: fileID, line: line)
  }
}
