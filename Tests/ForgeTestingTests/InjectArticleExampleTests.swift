import ForgeInject
import ForgeTesting
import Testing

// The "Replace a registration for one test" example of ForgeInject's
// testing article, kept compiling and checked here.

protocol NetworkServiceProtocol: Sendable {}
struct LiveNetworkService: NetworkServiceProtocol {}
struct MockNetworkService: NetworkServiceProtocol {}

let appContainer: ForgeContainer = {
  let container = ForgeContainer()
  container.register(with: .singleton) { _ in LiveNetworkService() as NetworkServiceProtocol }
  return container
}()

@Test(
  .isolated(appContainer) {
    $0.register(in: appContainer, with: .singleton) { _ in MockNetworkService() as NetworkServiceProtocol }
  })
func loadsProfileWithMock() throws {
  let service: NetworkServiceProtocol = try appContainer.resolve()
  #expect(service is MockNetworkService)
}

@Test("without the trait, the live service")
func loadsProfileLive() throws {
  let service: NetworkServiceProtocol = try appContainer.resolve()
  #expect(service is LiveNetworkService)
}
