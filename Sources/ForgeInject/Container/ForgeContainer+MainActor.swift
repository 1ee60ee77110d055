import ForgeCore

extension ForgeContainerProtocol {
  /// Registers a builder for `T` that runs on the main actor when `T` is
  /// first resolved (each time, for `.transient`), not at registration.
  ///
  /// On the main actor, `try container.resolve()` builds and returns it
  /// synchronously; anywhere else, `try await container.resolveAsync()`
  /// hops to the main actor for the build. A synchronous `resolve()` off
  /// the main actor throws `.missingFactoryMethod` saying so. The builder
  /// runs once per kept instance, and one that throws keeps nothing.
  ///
  /// ```swift
  /// container.register(with: .singleton, onMainActor: { c in
  ///   SettingsViewModel(store: try c.resolve())
  /// })
  ///
  /// @MainActor func showSettings() throws {
  ///   let model: SettingsViewModel = try container.resolve()  // on the main actor
  /// }
  /// func prefetch() async throws {
  ///   let model: SettingsViewModel = try await container.resolveAsync()  // elsewhere
  /// }
  /// ```
  ///
  /// `register(with:mainActorBuilder:)` builds at once instead, as seed 001
  /// documents. Only ``ForgeContainer`` builds on the main actor lazily;
  /// another conformer stops with a message, at `fileID` and `line`.
  public func register<T: Sendable>(
    with policy: ForgeRetainPolicy,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    onMainActor builder: @escaping @MainActor @Sendable (ForgeContainerProtocol) throws -> T
  ) {
    guard let container = self as? ForgeContainer else {
      StopSite(dialect: "ForgeInject", location: CodeLocation(fileID: fileID, line: line)).stop(
        ForgeDiagnostic(
          .missing,
          "\(TypeName.of(T.self)) has a main-actor builder but \(TypeName.of(type(of: self))) cannot run one",
          reason: "Only ForgeContainer builds on the main actor lazily.",
          fix: "register it with a ForgeContainer, or with register(with:mainActorBuilder:)."))
    }
    container.registerOnMainActor(with: policy, builder: builder)
  }
}

extension ForgeContainer {
  /// The key of `T`'s main-actor registration, apart from its other ones
  /// (see ``asyncKey(_:)``).
  @inlinable @inline(__always)
  static func mainActorKey<T>(_ type: T.Type) -> ObjectIdentifier {
    ObjectIdentifier(T.self, tag: 2)
  }

  func registerOnMainActor<T: Sendable>(
    with policy: ForgeRetainPolicy,
    builder: @escaping @MainActor @Sendable (ForgeContainerProtocol) throws -> T
  ) {
    if store.isIsolatedForCallingTask {
      // A test that isolates this container registers for itself.
      store.installOverride(mainActorOverride(T.self, with: policy, builder: builder), for: Self.mainActorKey(T.self))
      return
    }
    let lifetime = policy.lifetime
    do {
      try store.register(
        Self.mainActorKey(T.self), name: .type(T.self), lifetime: lifetime.ofAsyncHandle,
        builder: MainActorBuilder(run: builder, lifetime: lifetime), as: MainActorDependency<T>.self
      ) {
        bindMainActor($0, as: T.self)
      }
    } catch {
      stopRegistering(T.self, error)
    }
    noteAsyncValidationRoot(T.self)
  }

  /// The factory of handles of `T`'s main-actor builder.
  @usableFromInline
  func bindMainActor<T>(_ builder: Any, as type: T.Type) -> (@Sendable () throws -> MainActorDependency<T>)? {
    guard let registered = builder as? MainActorBuilder<T> else { return nil }
    return mainActorHandles(of: registered.run, lifetime: registered.lifetime)
  }

  /// Handles of `T` that run `builder` on the main actor, keeping what it
  /// builds as `lifetime` says.
  func mainActorHandles<T>(
    of builder: @escaping @MainActor @Sendable (ForgeContainerProtocol) throws -> T,
    lifetime: Lifetime
  ) -> @Sendable () throws -> MainActorDependency<T> {
    let identity = AsyncDependencyIdentity(store: store, key: Self.mainActorKey(T.self))
    // Weak: the handle lives in this container's store.
    return { [weak self] in
      MainActorDependency(name: TypeName.of(T.self), identity: identity, lifetime: lifetime) {
        @MainActor [weak self] in
        guard let self else {
          throw ForgeContainerError.missingFactoryMethod(
            ForgeContainerError.subject(TypeName.of(T.self), details: ["its container was released"]))
        }
        return try builder(self)
      }
    }
  }

  /// The main-actor registration of `T` for a test's scope: what
  /// `register(with:onMainActor:)` registers inside a test that isolates
  /// this container.
  func mainActorOverride<T: Sendable>(
    _ type: T.Type,
    with policy: ForgeRetainPolicy,
    builder: @escaping @MainActor @Sendable (ForgeContainerProtocol) throws -> T
  ) -> Override<MainActorDependency<T>> {
    store.makeOverride(
      Self.mainActorKey(T.self), name: "\(TypeName.of(T.self)) (test)", lifetime: policy.lifetime.ofAsyncHandle,
      attachment: TestValidationRoot(awaiting: T.self, in: self),
      make: mainActorHandles(of: builder, lifetime: policy.lifetime))
  }

  /// The handle of `T`'s main-actor builder; nil when `T` has none.
  func mainActorHandle<T>(_ type: T.Type) throws -> MainActorDependency<T>? {
    guard store.isRegistered(Self.mainActorKey(T.self)) else { return nil }
    return try registeredMainActorHandle(T.self)
  }

  /// The handle of `T`'s main-actor builder, resolved from the store;
  /// throws ``NotRegistered`` when `T` has none. Inlinable, so that a hit
  /// is specialised for `T` in the caller.
  @inlinable
  func registeredMainActorHandle<T>(_ type: T.Type) throws -> MainActorDependency<T> {
    try store.resolveRegistered(Self.mainActorKey(T.self), as: MainActorDependency<T>.self) {
      bindMainActor($0, as: T.self)
    }
  }

  /// `T` from its main-actor builder, for a synchronous `resolve()` that
  /// found no synchronous builder (`error`): built in place on the main
  /// actor; elsewhere the error saying how to resolve it. Without a
  /// main-actor builder either, `error` goes on as ``recover(from:resolving:)``
  /// says. Inlinable, so that a hit is specialised for `T`.
  @inlinable
  func resolveMainActorRegistered<T>(_ type: T.Type, after error: NotRegistered) throws -> T {
    // The hit, on the main actor: the instance the handle published, read in
    // place without copying the handle. A type without a main-actor builder
    // (an unregistered or Optional request) does not ask for the main actor.
    if let value = store.publishedMainActorValue(bits: Self.mainActorKey(T.self).identityBits, as: T.self) {
      return value
    }
    let handle: MainActorDependency<T>
    do {
      handle = try registeredMainActorHandle(T.self)
    } catch is NotRegistered {
      return try recover(from: error, resolving: T.self)
    }
    guard MainActorIsolation.isCurrent else { throw Self.resolvedOffMainActor(T.self) }
    // On the main actor, as checked (once: `MainActor.assumeIsolated`
    // would check again): the instance stays in this synchronous caller.
    return try MainActorIsolation.runChecked(handle) { try $0.resolvedValue() }
  }

  /// The error for a synchronous resolution of `T`, which has a main-actor
  /// builder, off the main actor.
  @usableFromInline
  static func resolvedOffMainActor<T>(_ type: T.Type) -> ForgeContainerError {
    let requested = TypeName.of(T.self)
    let chain = ResolutionContext.current.chain
    return .missingFactoryMethod(
      ForgeContainerError.subject(
        requested,
        details: [
          """
          built on the main actor by its onMainActor builder, and resolved off it: resolve it on the main \
          actor, or with try await container.resolveAsync()
          """,
          chain.isEmpty ? nil : "chain: \((chain + [requested]).joined(separator: " → "))",
        ]))
  }

  /// `T` from its main-actor builder, awaited: the build hops to the main
  /// actor.
  func resolveOnMainActor<T: Sendable>(_ handle: MainActorDependency<T>) async throws -> T {
    try await MainActor.run { try handle.resolvedValue() }
  }
}

/// A main-actor builder as registered, with the lifetime its handles hold
/// their instance for.
struct MainActorBuilder<T> {
  let run: @MainActor @Sendable (ForgeContainerProtocol) throws -> T
  let lifetime: Lifetime
}
