// Accepted in Swift 6 language mode without a warning: the ways a Sendable
// type reads Forge's dependencies, as the GettingStarted article shows them.
// `@Inject` itself cannot be one of them: see the rejected
// InjectInSendableClass.swift.
import Forge

protocol AuthServiceProtocol: Sendable {
  func logIn() -> Bool
}

final class AuthService: AuthServiceProtocol {
  func logIn() -> Bool { true }
}

extension AppContainer {
  var authService: any AuthServiceProtocol { provide(.singleton) { AuthService() } }
}

/// Resolved once, when the object is made.
final class LoginModel: Sendable {
  let authService = AppContainer.shared.authService
}

final class SessionModel: Sendable {
  // Resolved on each use, within whatever `withOverrides` scope is active.
  var authService: any AuthServiceProtocol { AppContainer.shared.authService }
  func start() -> Bool { authService.logIn() }
}

/// Isolated to the main actor (and so Sendable): `@Inject` is allowed.
@MainActor final class LoginViewModel {
  @Inject(\.authService) private var authService
  func logIn() -> Bool { authService.logIn() }
}

@globalActor actor SessionActor {
  static let shared = SessionActor()
}

/// Isolated to another global actor: the same.
@SessionActor final class SessionStore {
  @Inject(\.authService) private var authService
  func refresh() -> Bool { authService.logIn() }
}
