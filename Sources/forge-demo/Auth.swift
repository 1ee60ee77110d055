import Forge

// The auth module. It needs a logger but does not import the logging module's
// container: its `logger` is a proxy that the composition root wires.

struct User: Sendable, Equatable {
  let name: String
}

enum AuthError: Error, CustomStringConvertible {
  case wrongPassword(user: String)
  var description: String {
    switch self {
    case .wrongPassword(let user): "wrong password for \(user)"
    }
  }
}

protocol AuthService: Sendable {
  func logIn(_ name: String, password: String) throws -> User
  func logOut()
  var currentUser: User? { get }
}

/// Checks passwords against a fixed table; remembers who is logged in.
final class PasswordAuthService: AuthService {
  private let passwords: [String: String]
  private let logger: any Logger
  private let session = Locked<User?>(nil)

  init(passwords: [String: String], logger: any Logger) {
    self.passwords = passwords
    self.logger = logger
  }

  func logIn(_ name: String, password: String) throws -> User {
    guard passwords[name] == password else {
      logger.log("auth", "rejected \(name)")
      throw AuthError.wrongPassword(user: name)
    }
    let user = User(name: name)
    session.current = user
    logger.log("auth", "\(name) logged in")
    return user
  }

  func logOut() {
    if let user = session.current { logger.log("auth", "\(user.name) logged out") }
    session.current = nil
  }

  var currentUser: User? { session.current }
}

final class AuthContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = AuthContainer()

  /// Wired by the composition root.
  var logger: any Logger {
    provide(.singleton) { unimplemented("logger") }
  }

  var authService: any AuthService {
    provide(.singleton) {
      PasswordAuthService(passwords: ["ada": "lovelace", "alan": "turing"], logger: self.logger)
    }
  }
}
