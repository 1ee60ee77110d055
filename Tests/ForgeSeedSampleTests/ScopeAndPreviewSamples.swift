import Forge
import Testing

// "Scopes", "Xcode Preview Support" and "The unimplemented Helper", as
// written, inside containers of their own.

final class ScopesContainer: Container, @unchecked Sendable {
  // New instance every time (default)
  var analytics: any AnalyticsProtocol {
    provide(.transient) { AnalyticsService() }
  }

  // One instance for the lifetime of the container
  var database: any DatabaseProtocol {
    provide(.singleton) { SQLiteDatabase() }
  }

  // One instance until explicitly reset via container.resetCached()
  var viewModel: TaskListViewModel {
    provide(.cached) { TaskListViewModel() }
  }
}

final class PreviewContainer: Container, @unchecked Sendable {
  var networkClient: any NetworkClientProtocol {
    provide(.singleton) { URLSessionNetworkClient() }
  }

  var authService: any AuthServiceProtocol {
    provide(.singleton) {
      AuthService(network: self.networkClient)
    } preview: {
      MockAuthService()
    }
  }
}

final class FeatureSearchContainer: Container, @unchecked Sendable {
  // In FeatureSearch — analytics is wired by the app target
  var analytics: any AnalyticsProtocol {
    provide(.singleton) {
      unimplemented("analytics")
    } preview: {
      MockAnalytics()
    }
  }
}

/// The test-container sample subclasses `AuthContainer`, which therefore
/// cannot be the `final` one of the modular sample; here it is a plain base.
enum TestContainerSample {
  class AuthContainer: Container, @unchecked Sendable {
    var authService: any AuthServiceProtocol {
      provide(.singleton) { AuthService() }
    }
  }

  final class TestAuthContainer: AuthContainer, @unchecked Sendable {
    override var authService: any AuthServiceProtocol {
      provide { unimplemented("authService") }
    }
  }
}

@Suite("Seed 000: scopes, previews, unimplemented")
struct ScopeAndPreviewSampleTests {
  @Test("the three scopes behave as the table says")
  func scopes() {
    let container = ScopesContainer()
    #expect(container.analytics as AnyObject !== container.analytics as AnyObject)
    let database = container.database as AnyObject
    let viewModel = container.viewModel
    #expect(container.database as AnyObject === database)
    #expect(container.viewModel === viewModel)
    container.resetCached()
    #expect(container.database as AnyObject === database)
    #expect(container.viewModel !== viewModel)
  }

  @Test("previews use the preview factory automatically")
  func previews() {
    let container = PreviewContainer()
    #expect(container.authService is AuthService)
    Forge.withPreviewMode {
      #expect(container.authService is MockAuthService)
    }
  }

  @Test("an unimplemented proxy still renders in previews")
  func unimplementedPreview() {
    Forge.withPreviewMode {
      #expect(FeatureSearchContainer().analytics is MockAnalytics)
    }
  }

  @Test("a test container fails loudly for anything not overridden")
  func testContainer() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = TestContainerSample.TestAuthContainer().authService
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("unimplemented dependency \"authService\""))
  }

  @Test("a test container works once the test overrides what it uses")
  func testContainerOverridden() {
    let container = TestContainerSample.TestAuthContainer()
    container.override(\.authService) { MockAuthService() }
    #expect(container.authService is MockAuthService)
  }
}
