import Forge

// The analytics module: records events in memory so the demo can show them.

protocol Analytics: Sendable {
  func track(_ event: String)
  var events: [String] { get }
}

final class InMemoryAnalytics: Analytics {
  private let recorded = Locked<[String]>([])
  func track(_ event: String) { recorded.withLock { $0.append(event) } }
  var events: [String] { recorded.current }
}

final class AnalyticsContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = AnalyticsContainer()

  var analytics: any Analytics {
    provide(.singleton) { InMemoryAnalytics() }
  }
}
