import ForgeCore

/// Knows how to build one dependency; pass it to a pod to get an instance.
///
/// There is no registration step: whoever holds a provider can resolve it,
/// so an unregistered dependency cannot exist.
///
/// ```swift
/// let httpClientProvider = Provider { _ in HttpClient() }
///
/// let dataServiceProvider = Provider<DataService> { pod in
///   RemoteDataService(httpClient: pod.resolve(httpClientProvider))
/// }
/// ```
///
/// Providers compare by identity: two providers of the same type are two
/// dependencies, each with its own cache.
public final class Provider<T>: Hashable, Sendable, KeyObject {
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
  /// defaults to its type and where it is declared
  /// (`Provider<MyApp.Clock> (AppProviders.swift:12)`).
  public let name: String
  @usableFromInline let builder: @Sendable (ProviderResolver) -> T
  /// The engine lifetime of `scope`, worked out once.
  @usableFromInline let lifetime: Lifetime
  /// Where the provider is declared: a failed resolution stops there.
  @usableFromInline let location: CodeLocation

  /// A provider whose instances `builder` builds, kept according to `scope`.
  ///
  /// `fileID` and `line` say where it is declared; leave the defaults. A
  /// resolution of this provider that fails stops the program there.
  public init(
    scope: ProviderScope = SingletonScope(),
    _ builder: @escaping @Sendable (ProviderResolver) -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.scope = scope
    self.location = CodeLocation(fileID: fileID, line: line)
    self.name = location.defaultName("Provider", of: T.self)
    self.builder = builder
    self.lifetime = scope.lifetime
    scope.registerName()
  }

  /// A provider with a name of its own for messages, such as a cycle's path.
  ///
  /// ```swift
  /// let titleProvider = Provider("appTitle") { _ in "My cool app" }
  /// ```
  public init(
    _ name: String,
    scope: ProviderScope = SingletonScope(),
    _ builder: @escaping @Sendable (ProviderResolver) -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.scope = scope
    self.name = name
    self.builder = builder
    self.lifetime = scope.lifetime
    self.location = CodeLocation(fileID: fileID, line: line)
    scope.registerName()
  }

  public static func == (lhs: Provider, rhs: Provider) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// What a provider's builder receives: resolves other providers.
///
/// ```swift
/// let serviceProvider = Provider { pod in Service(client: pod.resolve(clientProvider)) }
/// ```
public protocol ProviderResolver: Sendable {
  /// The instance `provider` stands for.
  func resolve<T>(_ provider: Provider<T>) -> T
}
