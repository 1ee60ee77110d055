import Forge
import Foundation
import Testing

// The Testing article's examples, as written there, compiled in Swift 6
// language mode (this target's mode) without warnings.

protocol ArticleAuthServiceProtocol: Sendable {
  func login(username: String, password: String) async throws
}

final class ArticleMockAuthService: ArticleAuthServiceProtocol, @unchecked Sendable {
  // @unchecked: `calls` is read and written only while `lock` is held.
  private let lock = NSLock()
  private var calls: [String] = []

  var loginCalled: Bool { lock.withLock { !calls.isEmpty } }
  var usernames: [String] { lock.withLock { calls } }

  func login(username: String, password: String) async throws {
    lock.withLock { calls.append(username) }
  }
}

final class ArticleRealAuthService: ArticleAuthServiceProtocol {
  func login(username: String, password: String) async throws {}
}

extension AppContainer {
  var articleAuthService: any ArticleAuthServiceProtocol {
    provide(.singleton) { ArticleRealAuthService() }
  }
}

final class ArticleLoginViewModel {
  @Inject(\.articleAuthService) private var authService

  func login(username: String, password: String) async {
    try? await authService.login(username: username, password: password)
  }
}

@Suite("The Testing article")
struct TestingArticleTests {
  @Test("the recording mock, overridden for one test, records the call")
  func loginCallsService() async throws {
    let mock = ArticleMockAuthService()
    try await AppContainer.shared.withOverrides {
      $0.override(\.articleAuthService) { mock }
    } run: {
      await ArticleLoginViewModel().login(username: "user", password: "pass")
      try #require(mock.loginCalled)
      #expect(mock.usernames == ["user"])
    }
    #expect(AppContainer.shared.articleAuthService is ArticleRealAuthService)
  }
}
