import ForgeCore

/// How long a container keeps what a `provide` call builds.
///
/// ```swift
/// var analytics: any AnalyticsProtocol { provide(.transient) { AnalyticsService() } }
/// var database: any DatabaseProtocol { provide(.singleton) { SQLiteDatabase() } }
/// var viewModel: TaskListViewModel { provide(.cached) { TaskListViewModel() } }
/// ```
public enum Scope: Sendable {
  /// A new instance on every resolution.
  case transient
  /// Built once and kept as long as the container; survives `resetCached()`.
  case singleton
  /// Built once and kept until `resetCached()` or `resetAll()`.
  case cached
}

extension Scope {
  @usableFromInline var lifetime: Lifetime {
    switch self {
    case .transient: .transient
    case .singleton: .singleton
    case .cached: .cached
    }
  }
}
