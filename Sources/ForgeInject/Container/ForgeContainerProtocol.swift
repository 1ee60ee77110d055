/// A type-keyed dependency container: register builders by the type they
/// return, resolve by the type you ask for.
///
/// ```swift
/// let container = ForgeContainer()
/// container.register(with: .singleton) { _ in NetworkService() as NetworkServiceProtocol }
/// container.register(with: .singleton) { container in
///   let network: NetworkServiceProtocol = try container.resolve()
///   return UserRepository(networkService: network) as UserRepositoryProtocol
/// }
/// let repository: UserRepositoryProtocol = try container.resolve()
/// ```
public protocol ForgeContainerProtocol: Sendable {
  /// Registers `builder` for `T` with `policy`, replacing any earlier
  /// registration of `T` and dropping the instance it built. (A
  /// `ForgeContainer` inside a test that isolates it, with ForgeTesting,
  /// registers for that test only.)
  func register<T>(with policy: ForgeRetainPolicy, builder: @escaping @Sendable (ForgeContainerProtocol) throws -> T)
  /// Resolves the type the call site infers.
  func resolve<T>() throws -> T
  /// Resolves `type`.
  func resolveWithType<T>(_ type: T.Type) throws -> T
  /// The instances already built and still kept (singletons, live weak
  /// instances) that conform to `protocol`; never builds anything.
  func resolveAll<T>(conforming protocol: T.Type) -> [T]
  /// Drops kept singleton and weak instances, except those of `types`;
  /// every registration stays.
  func reset(preserving types: [Any.Type])
}

extension ForgeContainerProtocol {
  /// Registers a `.transient` builder for `T`.
  ///
  /// ```swift
  /// container.register { _ in FormValidator() }
  /// ```
  public func register<T>(builder: @escaping @Sendable (ForgeContainerProtocol) throws -> T) {
    register(with: .transient, builder: builder)
  }

  /// Builds the instance now, on the main actor, and registers it.
  ///
  /// For types whose initialiser is `@MainActor`. The instance built here is
  /// the one every resolution returns, whatever `policy` says, except that
  /// with `.weak` an instance of a class is released once nobody holds it:
  /// the container holds it until a resolution hands it out, then only
  /// while someone else does. The builder runs once, here, so a resolution
  /// after the instance is gone throws `.missingFactoryMethod` saying so.
  ///
  /// ```swift
  /// @MainActor func setUpContainer() {
  ///   container.register(with: .singleton, mainActorBuilder: { _ in
  ///     ProtectedDataObserver() as ProtectedDataObserving
  ///   })
  /// }
  /// ```
  @MainActor
  public func register<T: Sendable>(
    with policy: ForgeRetainPolicy,
    mainActorBuilder builder: @MainActor (ForgeContainerProtocol) throws -> T
  ) rethrows {
    let instance = try builder(self)
    if let container = self as? ForgeContainer {
      // Kept at once, as seed 001 says: `resolveAll(conforming:)` sees it
      // before anything resolves it. A weak one is held until handed out.
      if policy == .weak, type(of: instance as Any) is AnyClass {
        container.registerBuiltWeakly(instance)
      } else {
        container.registerBuilt(instance)
      }
    } else {
      register(with: policy) { _ in instance }
    }
  }
}
