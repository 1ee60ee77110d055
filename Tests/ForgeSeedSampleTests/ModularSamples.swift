import Forge
import Testing

// "Modular Setup (per-module containers)", as written, except that the alias
// is fileprivate: this test module holds the zero-config samples too, and a
// module-wide alias would redirect their @Inject to AuthContainer. In an app
// module of its own the alias is written without `fileprivate`.

private typealias Inject<T> = ContainerInject<AuthContainer, T>

final class AuthContainer: Container, SharedContainer, @unchecked Sendable {
  static var shared = AuthContainer()

  var networkClient: any NetworkClientProtocol {
    provide(.singleton) { URLSessionNetworkClient() }
  }

  var authService: any AuthServiceProtocol {
    provide(.singleton) { AuthService(network: self.networkClient) }
  }
}

final class ModularLoginViewModel {
  @Inject(\.authService) private var authService

  var service: any AuthServiceProtocol { authService }
}

// "Cross-Module Dependencies", as written.

// In SearchModule — depends on analytics, but doesn't import the analytics module
final class SearchContainer: Container, SharedContainer, @unchecked Sendable {
  static var shared = SearchContainer()

  // Wired by the app target at startup via override
  var analytics: any AnalyticsProtocol {
    provide(.singleton) { unimplemented("analytics") }
  }

  var searchService: any SearchServiceProtocol {
    provide(.singleton) { SearchService(analytics: self.analytics) }
  }
}

extension AppContainer {
  var analytics: any AnalyticsProtocol {
    provide(.singleton) { AnalyticsService() }
  }
}

// In your App's init()
func wireContainers() {
  let app = AppContainer.shared
  SearchContainer.shared.override(\.analytics) { app.analytics }
}

@Suite("Seed 000: modules")
struct ModularSampleTests {
  @Test("a module's alias shadows Inject and resolves from its container")
  func moduleAlias() {
    let viewModel = ModularLoginViewModel()
    #expect(viewModel.service as AnyObject === AuthContainer.shared.authService as AnyObject)
    #expect(viewModel.service as AnyObject !== AppContainer.shared.authService as AnyObject)
  }

  @Test("the composition root wires the proxy with override")
  func compositionRoot() {
    wireContainers()
    #expect(SearchContainer.shared.searchService.search("forge") == ["forge"])
    #expect(SearchContainer.shared.analytics as AnyObject === AppContainer.shared.analytics as AnyObject)
  }

  @Test("an unwired proxy stops with a message naming it")
  func unwired() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = SearchContainer.shared.searchService
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("unimplemented dependency \"analytics\""))
    #expect(stderr.contains("SearchContainer.searchService → SearchContainer.analytics"))
  }
}
