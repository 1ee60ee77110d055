// The engine's shared types (diagnostics, DependencyGraph, ValidationReport,
// resolution events) are part of this API.
@_exported import ForgeCore

/// The container: resolves providers, caches by scope, and lets tests and
/// previews override providers.
///
/// ```swift
/// let pod = SwiftPod()
/// let dataService = pod.resolve(dataServiceProvider)
///
/// pod.overrideProvider(dataServiceProvider) { _ in MockDataService() }
/// pod.clearCachedInstances(forScope: SignUpScope())
/// ```
///
/// Safe from any thread: many tasks resolving one cached provider get one
/// instance. A provider cycle stops with a message naming every provider on
/// the path — the API cannot throw.
public final class SwiftPod: ProviderResolver {
  @usableFromInline let store: SlotStore<IdentityKey>
  /// The store's ``SlotStore/fastSerialWord``, kept here so that a hit
  /// reads it without going through the store.
  @usableFromInline let fastSerialWord: FastSerialWord

  /// Creates an empty pod.
  public init() {
    store = SlotStore()
    fastSerialWord = store.fastSerialWord
  }

  @inlinable @inline(__always)
  public func resolve<T>(_ provider: Provider<T>) -> T {
    // Inlined: the caller's call specialises the engine's common cases for
    // its `T`, and a hit pays for no call. The hit is read here and ends
    // with a branch, to the copy or to the miss (one call with two
    // arguments), so that it needs no frame. The provider outlives the read:
    // once it is gone, the pod may drop its slot, which the engine reads
    // unretained.
    defer { withExtendedLifetime(provider as AnyObject) {} }
    return store.resolveCachedObject(
      serial: provider.keySerial, life: provider.keyLife, as: T.self, fastSerialWord: fastSerialWord
    ) { miss in
      // Known at each of the read's exits, so each jumps to its own miss.
      // Static, with the pod an ordinary argument: a method would take it
      // in the register that carries `self`, which the hit would then have
      // to save and restore, giving it a frame; this way each miss is the
      // hit's last call, a jump.
      switch miss {
      case .unpublished: return Self.resolveUnpublished(self, provider)
      case .general: return Self.resolveOverridden(self, provider)
      default: return Self.resolveMissed(self, provider, miss)
      }
    }
  }

  /// ``resolve(_:)-(Provider<T>)``'s miss while the pod holds overrides (or
  /// an observer): the override, or the instance of a provider not
  /// overridden, through the provider's cached slot, in a small function
  /// of its own; else ``resolveMissed(_:_:_:)``.
  @inlinable @inline(never)
  static func resolveOverridden<T>(_ pod: SwiftPod, _ provider: Provider<T>) -> T {
    do {
      // The provider outlives the read (see resolveMissed(_:_:)).
      defer { withExtendedLifetime(provider as AnyObject) {} }
      if let value = try pod.store.servedPastObjectOverrides(
        serial: provider.keySerial, life: provider.keyLife, as: T.self)
      {
        return value
      }
    } catch {
      pod.stop(error, at: provider.location)
    }
    return resolveMissed(pod, provider, .general)
  }

  /// ``resolveUnpublished(_:)`` for ``resolve(_:)-(Provider<T>)``'s hit (see there).
  @inlinable @inline(never)
  static func resolveUnpublished<T>(_ pod: SwiftPod, _ provider: Provider<T>) -> T {
    pod.resolveUnpublished(provider)
  }

  /// ``resolveMissed(_:_:)`` for ``resolve(_:)-(Provider<T>)``'s hit (see there).
  @inlinable @inline(never)
  static func resolveMissed<T>(_ pod: SwiftPod, _ provider: Provider<T>, _ miss: ObjectReadMiss) -> T {
    pod.resolveMissed(provider, miss)
  }

  /// ``ProviderResolver/resolve(_:)`` for this pod: what a builder's
  /// `pod.resolve(provider)` runs, where `T` is not known. ``resolve(_:)``
  /// itself is inlined into its callers; inlined into the protocol's
  /// witness, unspecialised, it would cost a builder's resolution more
  /// than this call does. Not for calling directly: `pod.resolve(provider)`
  /// reads the same.
  @_implements(ProviderResolver,resolve(_:)) @_disfavoredOverload @inline(never)
  public func _resolveThroughProtocol<T>(_ provider: Provider<T>) -> T {
    resolve(provider)
  }

  /// ``resolve(_:)-(Provider<T>)`` when its cached slot publishes no
  /// instance: a transient is built here, in a small frame of its own,
  /// without the general miss's arguments; anything else goes on to
  /// ``resolveMissed(_:_:)``.
  @inlinable @inline(__always)
  func resolveUnpublished<T>(_ provider: Provider<T>) -> T {
    do {
      // The provider outlives the build (see below).
      defer { withExtendedLifetime(provider as AnyObject) {} }
      return try store.buildUnpublished(life: provider.keyLife, lifetime: provider.lifetime) {
        provider.builder(self)
      } otherwise: {
        Self.resolveMissed(self, provider, .cached)
      }
    } catch {
      stop(error, at: provider.location)
    }
  }

  /// ``resolve(_:)-(Provider<T>)`` past the cached read: `miss` says what
  /// the read learnt.
  @inlinable @inline(__always)
  func resolveMissed<T>(_ provider: Provider<T>, _ miss: ObjectReadMiss) -> T {
    do {
      // The provider outlives the resolution: once it is gone, the pod may
      // drop its slot, which the engine uses unretained.
      defer { withExtendedLifetime(provider as AnyObject) {} }
      return try store.resolveCachedObjectMissed(
        miss,
        serial: provider.keySerial,
        life: provider.keyLife,
        key: IdentityKey(provider),
        lifetime: provider.lifetime,
        name: provider.name
      ) {
        provider.builder(self)
      }
    } catch {
      stop(error, at: provider.location)
    }
  }

  /// Stops the program with the message for a failed resolution, at the
  /// declaration of the provider that failed; out of line, so that inlined
  /// resolutions stay small.
  @usableFromInline @inline(never)
  func stop(_ error: any Error, at location: CodeLocation) -> Never {
    // Validating: the run ends here and reports the error instead.
    ValidationSession.failIfValidating(error)
    StopSite(dialect: "SwiftPod", location: location).stop(error)
  }

  /// Makes `provider` build with `builder` instead, until
  /// ``removeOverrideProvider(_:)-(Provider<T>)``. The override's instances are cached under
  /// `scope`, or under the provider's own scope when `scope` is nil. Any
  /// instance cached for the override before is dropped; the original's stays
  /// for when the override is removed.
  ///
  /// ```swift
  /// pod.overrideProvider(myCoolServiceProvider) { _ in MockMyCoolService() }
  /// ```
  ///
  /// Inside a test that isolates the pod (ForgeTesting), the override is
  /// the test's: it serves that test only, until it is removed or the test
  /// ends.
  public func overrideProvider<T>(
    _ provider: Provider<T>,
    with builder: @escaping @Sendable (ProviderResolver) -> T,
    scope: ProviderScope? = nil
  ) {
    store.installOverride(override(provider, with: builder, scope: scope), for: IdentityKey(provider))
  }

  /// The override of `provider` that ``overrideProvider(_:with:scope:)-(Provider<T>,_,_)``
  /// installs, or a test's scope (see `TestOverrides`).
  func override<T>(
    _ provider: Provider<T>,
    with builder: @escaping @Sendable (ProviderResolver) -> T,
    scope: ProviderScope?
  ) -> Override<T> {
    // `unowned`: the store keeping the override belongs to this pod, and it
    // is only resolved through a live pod.
    store.makeOverride(
      IdentityKey(provider),
      name: "\(provider.name) (override)",
      lifetime: (scope ?? provider.scope).lifetime
    ) { [unowned self] in builder(self) }
  }

  /// Removes the override of `provider`, with anything it cached; the
  /// provider's own builder and cached instance apply again.
  ///
  /// ```swift
  /// pod.removeOverrideProvider(myCoolServiceProvider)
  /// ```
  ///
  /// Inside a test that isolates the pod (ForgeTesting), it removes the
  /// test's override of `provider`, whether the test installed it or
  /// declared it in its trait, for the rest of that test only.
  public func removeOverrideProvider<T>(_ provider: Provider<T>) {
    store.removeOverride(IdentityKey(provider))
  }

  /// Drops every instance cached under `scope` or any scope below it
  /// (its children, their children, …). `SingletonScope` instances stay.
  ///
  /// ```swift
  /// pod.clearCachedInstances(forScope: SignUpScope())
  /// ```
  public func clearCachedInstances(forScope scope: ProviderScope) {
    let cleared = scope.lifetimesClearedWithIt
    guard !cleared.isEmpty else { return }
    store.clearStored { cleared.contains($0) }
  }
}
