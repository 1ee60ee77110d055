import ForgeCore

extension ForgeContainerProtocol {
  /// Registers an `async` builder for `T` with `policy`: resolve it with
  /// ``resolveAsync()``.
  ///
  /// However many tasks first resolve a kept `T` at the same time, `builder`
  /// runs once and none of them blocks a thread while it waits; a builder
  /// that throws keeps nothing, every waiter receives the error, and the
  /// next resolution builds again. The builder may resolve synchronous
  /// registrations and await asynchronous ones.
  ///
  /// ```swift
  /// container.register(with: .singleton) { c async throws in
  ///   try await Database.open(logger: c.resolve())
  /// }
  /// let database: Database = try await container.resolveAsync()
  /// ```
  ///
  /// Only ``ForgeContainer`` builds asynchronously; another conformer
  /// stops with a message, at `fileID` and `line`.
  public func register<T: Sendable>(
    with policy: ForgeRetainPolicy,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    builder: @escaping @Sendable (ForgeContainerProtocol) async throws -> T
  ) {
    guard let container = self as? ForgeContainer else {
      StopSite(dialect: "ForgeInject", location: CodeLocation(fileID: fileID, line: line)).stop(
        ForgeDiagnostic(
          .missing,
          "\(TypeName.of(T.self)) has an async builder but \(TypeName.of(type(of: self))) cannot run one",
          reason: "Only ForgeContainer builds asynchronously.", fix: "register it with a ForgeContainer."))
    }
    container.registerAsync(with: policy, builder: builder)
  }

  /// Resolves the type the call site infers, awaiting its async builder
  /// when it has one (registered with an `async` builder); a type with a
  /// synchronous builder is resolved as ``resolve()`` does. An `Optional<W>`
  /// that is not registered itself resolves `W`, awaiting its async builder
  /// when it has one, and is nil only when `W` is not registered.
  ///
  /// Runs on the caller's executor: a kept instance is read there, with no
  /// executor switch and no suspension; only a wait for a build suspends.
  ///
  /// ```swift
  /// let database: Database = try await container.resolveAsync()
  /// let cache: Cache? = try await container.resolveAsync()  // nil: no Cache
  /// ```
  ///
  /// Not an overload of `resolve()`: in an `async` function Swift prefers an
  /// `async` overload, and every existing `try container.resolve()` there
  /// would stop compiling for want of an `await`.
  nonisolated(nonsending) public func resolveAsync<T: Sendable>() async throws -> T {
    guard let container = self as? ForgeContainer else { return try resolve() }
    return try await container.resolveAsync()
  }

  /// ``resolveAsync()`` for an explicit type.
  ///
  /// ```swift
  /// let database = try await container.resolveAsync(Database.self)
  /// ```
  nonisolated(nonsending) public func resolveAsync<T: Sendable>(_ type: T.Type) async throws -> T {
    try await resolveAsync()
  }
}

extension ForgeContainer {
  /// The key of `T`'s async registration, apart from its synchronous one
  /// (`ObjectIdentifier(T.self)`) and its main-actor one
  /// (``mainActorKey(_:)``).
  @inlinable @inline(__always)
  static func asyncKey<T>(_ type: T.Type) -> ObjectIdentifier {
    ObjectIdentifier(T.self, tag: 1)
  }

  func registerAsync<T: Sendable>(
    with policy: ForgeRetainPolicy,
    builder: @escaping @Sendable (ForgeContainerProtocol) async throws -> T
  ) {
    if store.isIsolatedForCallingTask {
      // A test that isolates this container registers for itself.
      store.installOverride(asyncOverride(T.self, with: policy, builder: builder), for: Self.asyncKey(T.self))
      return
    }
    let lifetime = policy.lifetime
    do {
      try store.register(
        Self.asyncKey(T.self), name: .type(T.self), lifetime: lifetime.ofAsyncHandle,
        builder: AsyncBuilder(run: builder, lifetime: lifetime), as: AsyncDependency<T>.self
      ) {
        bindAsync($0, as: T.self)
      }
    } catch {
      stopRegistering(T.self, error)
    }
    // An `Optional<T>` request awaits `T`: known here, where `T` is known
    // to be Sendable (a conformance of `Optional` cannot require it).
    asyncOptionals.withValue {
      $0[ObjectIdentifier(T?.self)] = { container in try await container.resolveAsync() as T }
    }
    noteAsyncValidationRoot(T.self)
  }

  /// Remembers how to await `T` for ``validateAsync()``; a registration
  /// again of the same type keeps its first place.
  func noteAsyncValidationRoot<T: Sendable>(_ type: T.Type) {
    asyncValidationRoots.withValue { $0.note(ObjectIdentifier(T.self), AsyncRoot<T>.self) }
  }

  /// What validation awaits for `T`, registered with an `async` or
  /// main-actor builder.
  func asyncValidationRoot<T: Sendable>(_ type: T.Type) -> Validation.AsyncRoot {
    AsyncRoot<T>.root(in: self)
  }

  /// The factory of handles of `T`'s async builder.
  @usableFromInline
  func bindAsync<T: Sendable>(_ builder: Any, as type: T.Type) -> (@Sendable () throws -> AsyncDependency<T>)? {
    guard let registered = builder as? AsyncBuilder<T> else { return nil }
    return asyncHandles(of: registered.run, lifetime: registered.lifetime)
  }

  /// The factory of handles whose instance `builder` builds with this
  /// container, kept with `lifetime`: for `T`'s async registration, or a
  /// test's (see `TestOverrides`).
  func asyncHandles<T: Sendable>(
    of builder: @escaping @Sendable (ForgeContainerProtocol) async throws -> T,
    lifetime: Lifetime
  ) -> @Sendable () throws -> AsyncDependency<T> {
    let identity = AsyncDependencyIdentity(store: store, key: Self.asyncKey(T.self))
    // Weak: the handle lives in this container's store.
    return { [weak self] in
      AsyncDependency(name: TypeName.of(T.self), identity: identity, lifetime: lifetime) { [weak self] in
        guard let self else {
          throw ForgeContainerError.missingFactoryMethod(
            ForgeContainerError.subject(TypeName.of(T.self), details: ["its container was released"]))
        }
        return try await builder(self)
      }
    }
  }

  /// ``ForgeContainerProtocol/resolveAsync()``, specialised for a
  /// `ForgeContainer` (no cast of the container).
  ///
  /// Runs on the caller's executor: a kept instance is read there, with no
  /// executor switch and no suspension; only a wait for a build suspends.
  ///
  /// ```swift
  /// let database: Database = try await container.resolveAsync()
  /// ```
  @inlinable @inline(__always)
  nonisolated(nonsending) public func resolveAsync<T: Sendable>() async throws -> T {
    // Inlinable: a hit is a lock-free read of the instance the handle
    // published, in place.
    if let value = store.publishedAsyncValue(bits: Self.asyncKey(T.self).identityBits, as: T.self) { return value }
    return try await resolveAsyncMissed(T.self)
  }

  /// ``resolveAsync()`` past the published read, out of line: the hit's
  /// async frame stays small.
  @inlinable @inline(never)
  nonisolated(nonsending) func resolveAsyncMissed<T: Sendable>(_ type: T.Type) async throws -> T {
    let handle: AsyncDependency<T>
    do {
      handle = try store.resolveRegistered(Self.asyncKey(T.self), as: AsyncDependency<T>.self) {
        bindAsync($0, as: T.self)
      }
    } catch is NotRegistered {
      return try await resolveWithoutAsyncBuilder(T.self)
    }
    // The hit without an await of `value`: awaiting it after the handle's
    // resolution would hop to the generic executor a second time.
    if let value = handle.publishedValue { return value }
    return try await handle.unpublishedValue()
  }

  /// ``resolveAsync()`` of a `T` with no async builder: one with a
  /// main-actor builder is built on the main actor; an unregistered
  /// `Optional<W>` whose `W` has one awaits `W` (nil when `W` is not
  /// registered at all); anything else is resolved as ``resolve()`` does.
  @usableFromInline
  nonisolated(nonsending) func resolveWithoutAsyncBuilder<T: Sendable>(_ type: T.Type) async throws -> T {
    if let handle = try mainActorHandle(T.self) { return try await resolveOnMainActor(handle) }
    if !store.isRegistered(ObjectIdentifier(T.self)),
      let resolveWrapped = asyncOptionals.withValue({ $0[ObjectIdentifier(T.self)] })
    {
      // The cast wraps the `W` in the `Optional<W>` that `T` is.
      return try await resolveWrapped(self) as! T
    }
    return try resolve()
  }

  /// ``resolveAsync()`` for an explicit type.
  @inlinable
  nonisolated(nonsending) public func resolveAsync<T: Sendable>(_ type: T.Type) async throws -> T {
    try await resolveAsync()
  }

  /// The error for a synchronous resolution of `T` when `T` has an async
  /// builder; nil when it has none.
  func registeredAsync<T>(_ type: T.Type, chain: String?) -> ForgeContainerError? {
    guard store.isRegistered(Self.asyncKey(T.self)) else { return nil }
    return .missingFactoryMethod(
      ForgeContainerError.subject(
        TypeName.of(T.self),
        details: ["registered with an async builder: resolve it with try await container.resolveAsync()", chain]))
  }
}

/// An async builder as registered, with the lifetime its handles hold
/// their instance for.
struct AsyncBuilder<T: Sendable> {
  let run: @Sendable (ForgeContainerProtocol) async throws -> T
  let lifetime: Lifetime
}
