import ForgeCore

/// Knows how to build one dependency with an `async` builder; await
/// `pod.resolve(_:)` for an instance.
///
/// However many tasks first resolve a kept provider at the same time, the
/// builder runs once and none of them blocks a thread while it waits. A
/// builder that throws keeps nothing: every waiter receives the error and
/// the next resolution builds again. The builder may resolve synchronous
/// providers and await asynchronous ones.
///
/// ```swift
/// let databaseProvider = AsyncProvider { pod in
///   try await Database.open(logger: pod.resolve(loggerProvider))
/// }
///
/// let database = try await pod.resolve(databaseProvider)
/// ```
///
/// Like ``Provider``, compared by identity, with a cache of its own.
public final class AsyncProvider<T: Sendable>: Hashable, Sendable, KeyObject {
  /// What a container keys this dependency by: never reused, so a
  /// container need not keep the object alive to tell it from one made
  /// later at the same address (a container forgets a dependency whose
  /// key object is gone).
  @usableFromInline package let keySerial = KeySerial.next()
  /// Tells the containers that key by it when it is gone.
  @usableFromInline package let keyLife = KeyLife.make()

  deinit { keyLife.end() }
  /// How long a pod keeps this provider's instances.
  public let scope: ProviderScope
  /// Names the provider in messages (a cycle's path, say) and graphs;
  /// defaults to its type and where it is declared.
  public let name: String
  @usableFromInline let builder: @Sendable (ProviderResolver) async throws -> T
  @usableFromInline let lifetime: Lifetime
  /// Where the provider is declared: a failed resolution stops there.
  let location: CodeLocation

  /// A provider whose instances `builder` builds, kept according to `scope`.
  public init(
    _ name: String? = nil,
    scope: ProviderScope = SingletonScope(),
    _ builder: @escaping @Sendable (ProviderResolver) async throws -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.scope = scope
    self.location = CodeLocation(fileID: fileID, line: line)
    self.name = name ?? location.defaultName("AsyncProvider", of: T.self)
    self.builder = builder
    self.lifetime = scope.lifetime
    scope.registerName()
  }

  public static func == (lhs: AsyncProvider, rhs: AsyncProvider) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ProviderResolver {
  /// The instance `provider` stands for, built by its async builder (in a
  /// builder: the `pod` parameter awaits another async provider).
  ///
  /// ```swift
  /// let repositoryProvider = AsyncProvider { pod in
  ///   Repository(database: try await pod.resolve(databaseProvider))
  /// }
  /// ```
  nonisolated(nonsending) public func resolve<T>(_ provider: AsyncProvider<T>) async throws -> T {
    guard let pod = self as? SwiftPod else {
      stopOutsideAPod(provider.name, "is async", "builds asynchronously", at: provider.location)
    }
    return try await pod.resolve(provider)
  }

  /// Stops a resolution, asked of this resolver (not a SwiftPod), of the
  /// provider `name`, which only a pod builds (`what`: "is async"; `why`:
  /// what only a pod does), at its declaration.
  func stopOutsideAPod(_ name: String, _ what: String, _ why: String, at location: CodeLocation) -> Never {
    StopSite(dialect: "SwiftPod", location: location).stop(
      ForgeDiagnostic(
        .missing, "\(name) \(what) but \(TypeName.of(type(of: self))) cannot build it",
        reason: "Only a SwiftPod \(why).",
        fix: "resolve it through a SwiftPod."))
  }
}

extension SwiftPod {
  /// The instance `provider` stands for, built by its async builder.
  ///
  /// Runs on the caller's executor: a kept instance is read there, with no
  /// executor switch and no suspension; only a wait for a build suspends.
  ///
  /// ```swift
  /// let database = try await pod.resolve(databaseProvider)
  /// ```
  @inlinable @inline(__always)
  nonisolated(nonsending) public func resolve<T>(_ provider: AsyncProvider<T>) async throws -> T {
    // Inlinable: a hit is the handle's published read and one load, with
    // the handle read in place (not copied out, retained and released).
    // The provider outlives the resolution: once it is gone, the container
    // may drop its slot, which the read uses unretained.
    defer { extendLifetime(provider) }
    if let value = store.publishedAsyncObjectValue(serial: provider.keySerial, life: provider.keyLife, as: T.self) {
      return value
    }
    return try await resolveAsyncMissed(provider)
  }

  /// ``resolve(_:)-(AsyncProvider<T>)`` past the published read, out of
  /// line: the hit's async frame stays small.
  @inlinable @inline(never)
  nonisolated(nonsending) func resolveAsyncMissed<T>(_ provider: AsyncProvider<T>) async throws -> T {
    let handle = try store.resolveKeptObject(
      serial: provider.keySerial,
      key: IdentityKey(provider),
      lifetime: provider.lifetime.ofAsyncHandle,
      name: provider.name
    ) {
      asyncHandle(provider.name, key: IdentityKey(provider), lifetime: provider.lifetime, builder: provider.builder)
    }
    // The hit without an await of `value`: awaiting it after the handle's
    // resolution would hop to the generic executor a second time.
    if let value = handle.publishedValue { return value }
    return try await handle.unpublishedValue()
  }

  /// A handle whose instances `builder` builds with this pod.
  @usableFromInline
  func asyncHandle<T>(
    _ name: String,
    key: IdentityKey,
    lifetime: Lifetime,
    builder: @escaping @Sendable (ProviderResolver) async throws -> T
  ) -> AsyncDependency<T> {
    store.asyncHandle(key: key, name: name, lifetime: lifetime, owner: self, factory: builder)
  }

  /// Makes `provider` build with `builder` instead, until
  /// `removeOverrideProvider(_:)`; its instances are cached under `scope`,
  /// or the provider's own scope when `scope` is nil.
  ///
  /// ```swift
  /// pod.overrideProvider(databaseProvider) { _ in InMemoryDatabase() }
  /// ```
  public func overrideProvider<T>(
    _ provider: AsyncProvider<T>,
    with builder: @escaping @Sendable (ProviderResolver) async throws -> T,
    scope: ProviderScope? = nil
  ) {
    store.installOverride(override(provider, with: builder, scope: scope), for: IdentityKey(provider))
  }

  /// The override of `provider` that ``overrideProvider(_:with:scope:)-(AsyncProvider<T>,_,_)``
  /// installs, or a test's scope (see `TestOverrides`).
  func override<T>(
    _ provider: AsyncProvider<T>,
    with builder: @escaping @Sendable (ProviderResolver) async throws -> T,
    scope: ProviderScope?
  ) -> Override<AsyncDependency<T>> {
    let lifetime = (scope ?? provider.scope).lifetime
    let name = "\(provider.name) (override)"
    let key = IdentityKey(provider)
    return store.makeOverride(key, name: name, lifetime: lifetime.ofAsyncHandle) { [unowned self] in
      asyncHandle(name, key: key, lifetime: lifetime, builder: builder)
    }
  }

  /// Removes the override of `provider`, with anything it cached.
  ///
  /// ```swift
  /// pod.removeOverrideProvider(databaseProvider)
  /// ```
  public func removeOverrideProvider<T>(_ provider: AsyncProvider<T>) {
    store.removeOverride(IdentityKey(provider))
  }
}
