import Forge
import Foundation

// The types the seed's samples mention, filled in so the samples compile.
//
// The samples are as written but for one addition the compiler asks for:
// Swift 6.3 wants every subclass of a Sendable class to restate the
// conformance, so each container restates `@unchecked Sendable`.

protocol NetworkClientProtocol: Sendable {
  func get(_ path: String) async -> String
}

final class URLSessionNetworkClient: NetworkClientProtocol {
  func get(_ path: String) async -> String { "response for \(path)" }
}

protocol AuthServiceProtocol: Sendable {
  func login(username: String, password: String) async throws
}

struct LoginFailed: Error {}

final class AuthService: AuthServiceProtocol {
  let network: (any NetworkClientProtocol)?
  init(network: any NetworkClientProtocol) { self.network = network }
  init() { self.network = nil }
  func login(username: String, password: String) async throws {
    _ = await network?.get("/login")
  }
}

final class MockAuthService: AuthServiceProtocol, @unchecked Sendable {
  // @unchecked: `loginCalled` is guarded by `lock`.
  private let lock = NSLock()
  private var called = false
  let shouldSucceed: Bool
  init(shouldSucceed: Bool = true) { self.shouldSucceed = shouldSucceed }
  var loginCalled: Bool { lock.withLock { called } }
  func login(username: String, password: String) async throws {
    lock.withLock { called = true }
    if !shouldSucceed { throw LoginFailed() }
  }
}

protocol AnalyticsProtocol: Sendable {
  func track(_ event: String)
}

final class AnalyticsService: AnalyticsProtocol {
  func track(_ event: String) {}
}

final class MockAnalytics: AnalyticsProtocol {
  func track(_ event: String) {}
}

protocol DatabaseProtocol: Sendable {}
final class SQLiteDatabase: DatabaseProtocol {}

final class TaskListViewModel {}

protocol SearchServiceProtocol: Sendable {
  func search(_ query: String) -> [String]
}

final class SearchService: SearchServiceProtocol {
  let analytics: any AnalyticsProtocol
  init(analytics: any AnalyticsProtocol) { self.analytics = analytics }
  func search(_ query: String) -> [String] {
    analytics.track("search \(query)")
    return [query]
  }
}
