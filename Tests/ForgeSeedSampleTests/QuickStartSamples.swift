import Forge
import Observation
import Testing

// "Simple Setup (zero config)", as written.

// 1. Extend AppContainer with your dependencies
extension AppContainer {
  var networkClient: any NetworkClientProtocol {
    provide(.singleton) { URLSessionNetworkClient() }
  }

  var authService: any AuthServiceProtocol {
    provide(.singleton) { AuthService(network: self.networkClient) }
  }
}

// 2. Inject anywhere — that's it
@Observable
final class LoginViewModel {
  @ObservationIgnored
  @Inject(\.authService) private var authService

  func login(username: String, password: String) async {
    try? await authService.login(username: username, password: password)
  }
}

@Suite("Seed 000: quick start")
struct QuickStartSampleTests {
  @Test("the zero-config setup resolves from AppContainer.shared")
  func zeroConfig() async {
    let viewModel = LoginViewModel()
    await viewModel.login(username: "user", password: "pass")
    #expect(AppContainer.shared.authService is AuthService)
    #expect(AppContainer.shared.networkClient as AnyObject === AppContainer.shared.networkClient as AnyObject)
  }

  // "Testing", as written.
  @Test("Login calls auth service")
  func loginCallsService() async throws {
    let mock = MockAuthService(shouldSucceed: true)

    try await AppContainer.shared.withOverrides {
      $0.override(\.authService) { mock }
    } run: {
      let viewModel = LoginViewModel()
      await viewModel.login(username: "user", password: "pass")
      #expect(mock.loginCalled)
    }
    // overrides are automatically restored here
    #expect(AppContainer.shared.authService is AuthService)
  }

  @Test("resetAll gives a fresh container")
  func resetAll() {
    // A container of its own: resetting `AppContainer.shared` would race the
    // tests above, which run in parallel and expect its singletons to stay.
    let container = AppContainer()
    let before = container.networkClient as AnyObject
    #expect(container.networkClient as AnyObject === before)
    container.resetAll()
    #expect(container.networkClient as AnyObject !== before)
  }
}
