/// A container of any dialect — a Forge `Container`, a `ForgeContainer`, a
/// `SwiftPod`, a `Fetcher`. Every dialect's container conforms, and gets
/// from here what every dialect offers the same way: its dependency graph
/// and its resolution observers (and ForgeTesting's per-test isolation).
/// There is nothing to implement.
///
/// ```swift
/// let graph = pod.dependencyGraph()
/// let token = AppContainer.shared.addObserver(ResolutionTreePrinter())
/// @Test(.isolated(AppContainer.shared, pod)) func signUp() { … }
/// ```
public protocol DependencyContainer: AnyObject, Sendable {
  /// The container's engine; made by the dialects.
  var engine: ForgeEngine { get }
}

/// A container's engine store, for ``DependencyContainer``; only the
/// dialects make one.
public struct ForgeEngine: Sendable {
  let store: any EngineStore

  package init<Key: SlotKey>(_ store: SlotStore<Key>) {
    self.store = store
  }

  /// Identifies the store, for scopes that isolate it.
  var identity: ObjectIdentifier { ObjectIdentifier(store) }

  /// How many slots the store holds; for tests.
  package var slotCount: Int { store.slotCount }

  /// How many container-wide overrides the store holds; for tests.
  package var overrideCount: Int { store.installedOverrideCount }

  /// How many replaced slot tables the store keeps; for tests.
  package var replacedTableCount: Int { store.replacedTableCount }

  /// How many times a shutdown found a build in progress and waited for
  /// it; for tests.
  package var shutdownWaitCount: Int { store.shutdownWaitCount }
}

/// What ``DependencyContainer`` needs of a store, whatever its key type.
protocol EngineStore: AnyObject, Sendable {
  func dependencyGraph() -> DependencyGraph
  func addObserver(_ observer: any ResolutionObserver) -> ObserverToken
  func removeObserver(_ token: ObserverToken)
  func shutdown() async -> ShutdownReport
  var slotCount: Int { get }
  var installedOverrideCount: Int { get }
  var replacedTableCount: Int { get }
  var shutdownWaitCount: Int { get }
}

extension SlotStore: EngineStore {}

extension DependencyContainer {
  /// What this container has resolved so far, with what each dependency's
  /// own factory resolved while building it; render it with
  /// ``DependencyGraph/mermaid``, ``DependencyGraph/dot`` or
  /// ``DependencyGraph/json``, or ask it who depends on what.
  ///
  /// ```swift
  /// _ = AppContainer.shared.loginViewModel   // resolve what you want to see
  /// let graph = AppContainer.shared.dependencyGraph()
  /// print(graph.mermaid)
  /// graph.dependents(of: "AppContainer.network").map(\.name)
  /// ```
  ///
  /// Nodes are named as messages name dependencies: `Container.property`
  /// in Forge, the registered type in ForgeInject, the provider's or
  /// service's name (its type unless it was given one) in SwiftPod and
  /// DependencyFetcher, where a custom scope is named by its type.
  /// Dependencies of other containers that this one's factories resolved
  /// are included.
  public func dependencyGraph() -> DependencyGraph {
    engine.store.dependencyGraph()
  }

  /// Tells `observer` about every resolution of this container from now
  /// on, until ``removeObserver(_:)``; safe from any thread.
  ///
  /// ```swift
  /// let token = AppContainer.shared.addObserver(ResolutionTreePrinter())
  /// _ = AppContainer.shared.loginViewModel
  /// // AppContainer.loginViewModel — built in 41µs
  /// //   AppContainer.authService — cached
  /// AppContainer.shared.removeObserver(token)
  /// ```
  ///
  /// While an observer is added, this container's resolutions take the
  /// locked path; with none, they cost what they cost before. Added inside
  /// a test that isolates the container (ForgeTesting), the observer hears
  /// that test's resolutions only, not those of tests running beside it.
  @discardableResult
  public func addObserver(_ observer: some ResolutionObserver) -> ObserverToken {
    engine.store.addObserver(observer)
  }

  /// Stops the observer `token` names; nothing when it was removed already.
  public func removeObserver(_ token: ObserverToken) {
    engine.store.removeObserver(token)
  }

  /// Shuts the container down: every instance it kept is released, and
  /// those adopting ``GracefulShutdown`` are shut down first, dependents
  /// before their dependencies (the latest kept first), every error
  /// collected. Afterwards every resolution from it fails with
  /// `[Forge.shutDown]`; a second call does nothing. A build of a kept
  /// instance in progress ends first, and its instance is stopped too;
  /// cancelling the calling task ends that wait.
  ///
  /// ```swift
  /// let report = await AppContainer.shared.shutdown()
  /// if !report.isClean { print(report) }
  /// ```
  @discardableResult
  public func shutdown() async -> ShutdownReport {
    await engine.store.shutdown()
  }
}

extension OverrideScope {
  /// Runs `operation` in a new scope of the current task that keeps every
  /// instance of the `isolating` containers for itself (fresh singletons and
  /// cached instances, dropped when it ends) and applies `entries`.
  package static func isolating<R>(
    _ containers: [any DependencyContainer],
    entries: [Target: AnyOverride] = [:],
    strict: StrictMode = .off,
    strictOwner: String? = nil,
    operation: () async throws -> R
  ) async rethrows -> R {
    let scope = OverrideScope(
      parent: current, entries: entries, isolating: Set(containers.map(\.engine.identity)), strict: strict,
      strictOwner: strictOwner)
    return try await with(scope) { try await operation() }
  }

  /// The synchronous form of ``isolating(_:entries:operation:)``.
  package static func isolating<R>(
    _ containers: [any DependencyContainer],
    entries: [Target: AnyOverride] = [:],
    strict: StrictMode = .off,
    strictOwner: String? = nil,
    operation: () throws -> R
  ) rethrows -> R {
    let scope = OverrideScope(
      parent: current, entries: entries, isolating: Set(containers.map(\.engine.identity)), strict: strict,
      strictOwner: strictOwner)
    return try with(scope, operation: operation)
  }
}
