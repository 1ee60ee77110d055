// `@Inject` in a Sendable class: Swift stores a property wrapper in a `var`
// (`_authService`), which a Sendable class may not have, and a wrapper can
// only be applied to a `var`. Read the container instead (a `let` resolved
// at initialisation, or a computed property): InjectionInSendableTypes.swift.
// expected-error: stored property '_authService' of 'Sendable'-conforming class 'LoginModel' is mutable
import Forge

final class AuthService: Sendable {}

extension AppContainer {
  var authService: AuthService { provide(.singleton) { AuthService() } }
}

final class LoginModel: Sendable {
  @Inject(\.authService) private var authService
}
