/// The ready-made container: extend it with your dependencies and inject them
/// with `@Inject(\.property)`, no set-up needed.
///
/// ```swift
/// extension AppContainer {
///   var authService: any AuthServiceProtocol {
///     provide(.singleton) { AuthService(network: self.networkClient) }
///   }
/// }
///
/// final class LoginViewModel {
///   @Inject(\.authService) private var authService
/// }
/// ```
public final class AppContainer: Container, SharedContainer, @unchecked Sendable {
  // @unchecked Sendable, restated as Swift 6 asks of every Container subclass:
  // a container's state is its engine store, guarded by the store's lock.
  /// The instance `@Inject` and `Forge.defaultContainer` use.
  public static let shared = AppContainer()
}
