import ForgeCore

/// Knows how to build one dependency on the main actor (a view model, a UI
/// service): resolve it on the main actor synchronously, and with `await`
/// anywhere else.
///
/// ```swift
/// let settingsProvider = MainActorProvider { pod in SettingsViewModel(store: pod.resolve(storeProvider)) }
///
/// @MainActor func show(pod: SwiftPod) { _ = pod.resolve(settingsProvider) }
/// func prefetch(pod: SwiftPod) async { _ = await pod.resolve(settingsProvider).title }
/// ```
///
/// Like ``Provider``, compared by identity, with a cache of its own.
public final class MainActorProvider<T>: Hashable, Sendable, KeyObject {
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
  let builder: @MainActor @Sendable (ProviderResolver) -> T
  let lifetime: Lifetime
  /// Where the provider is declared: a failed resolution stops there.
  let location: CodeLocation

  /// A provider whose instances `builder` builds on the main actor, kept
  /// according to `scope`.
  ///
  /// `fileID` and `line` say where it is declared; leave the defaults. A
  /// resolution of this provider that fails stops the program there.
  public init(
    _ name: String? = nil,
    scope: ProviderScope = SingletonScope(),
    _ builder: @escaping @MainActor @Sendable (ProviderResolver) -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.scope = scope
    self.location = CodeLocation(fileID: fileID, line: line)
    self.name = name ?? location.defaultName("MainActorProvider", of: T.self)
    self.builder = builder
    self.lifetime = scope.lifetime
    scope.registerName()
  }

  public static func == (lhs: MainActorProvider, rhs: MainActorProvider) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ProviderResolver {
  /// The instance `provider` stands for, built on the main actor (in a
  /// main-actor builder: the `pod` parameter resolves another main-actor
  /// provider).
  ///
  /// ```swift
  /// let screenProvider = MainActorProvider { pod in
  ///   SettingsScreen(router: pod.resolve(routerProvider))   // routerProvider: a MainActorProvider
  /// }
  /// ```
  @MainActor
  public func resolve<T>(_ provider: MainActorProvider<T>) -> T {
    guard let pod = self as? SwiftPod else {
      stopOutsideAPod(provider.name, "is built on the main actor", "builds on the main actor", at: provider.location)
    }
    return pod.resolve(provider)
  }
}

extension SwiftPod {
  /// The instance `provider` stands for, built on the main actor.
  ///
  /// ```swift
  /// let settings = pod.resolve(settingsProvider)   // on the main actor
  /// ```
  @inlinable @MainActor
  public func resolve<T>(_ provider: MainActorProvider<T>) -> T {
    // Inlinable: a hit is the published read of the handle, then one load,
    // with the handle read in place (not copied out, retained and released).
    // The provider outlives the resolution: once it is gone, the container
    // may drop its slot, which the read uses unretained.
    if let value = store.publishedMainActorObjectValueOnMainActor(
      serial: provider.keySerial, life: provider.keyLife, as: T.self)
    {
      extendLifetime(provider)
      return value
    }
    return mainActorHandle(provider).value
  }

  /// The handle of `provider`, past the published read.
  @usableFromInline
  func mainActorHandle<T>(_ provider: MainActorProvider<T>) -> MainActorDependency<T> {
    do {
      return try store.mainActorHandle(
        for: provider, name: provider.name, lifetime: provider.lifetime,
        stopSite: StopSite(dialect: "SwiftPod", location: provider.location)
      ) { [unowned self] in provider.builder(self) }
    } catch {
      stop(error, at: provider.location)
    }
  }
}
