/// A container of any dialect — a Forge `Container`, a `ForgeContainer`, a
/// `SwiftPod`, a `Fetcher` — which ForgeTesting can isolate per test. Every
/// dialect's container conforms; there is nothing to implement.
///
/// ```swift
/// @Test(.isolated(AppContainer.shared, pod))
/// func signUp() { … }  // fresh singletons and cached instances of both
/// ```
public protocol IsolatableContainer: AnyObject, Sendable {
  /// What identifies the container's engine store; made by the dialects.
  var isolationKey: IsolationKey { get }
}

/// Identifies one container's engine store, for ``IsolatableContainer``.
public struct IsolationKey: Hashable, Sendable {
  package let store: ObjectIdentifier

  package init<Key: SlotKey>(_ store: SlotStore<Key>) {
    self.store = ObjectIdentifier(store)
  }
}

extension OverrideScope {
  /// Runs `operation` in a new scope of the current task that keeps every
  /// instance of the `isolating` containers for itself (fresh singletons and
  /// cached instances, dropped when it ends) and applies `entries`.
  package static func isolating<R>(
    _ containers: [any IsolatableContainer],
    entries: [Target: AnyOverride] = [:],
    strict: StrictMode = .off,
    operation: () async throws -> R
  ) async rethrows -> R {
    let scope = OverrideScope(
      parent: current, entries: entries, isolating: Set(containers.map(\.isolationKey.store)), strict: strict)
    return try await with(scope) { try await operation() }
  }

  /// The synchronous form of ``isolating(_:entries:operation:)``.
  package static func isolating<R>(
    _ containers: [any IsolatableContainer],
    entries: [Target: AnyOverride] = [:],
    strict: StrictMode = .off,
    operation: () throws -> R
  ) rethrows -> R {
    let scope = OverrideScope(
      parent: current, entries: entries, isolating: Set(containers.map(\.isolationKey.store)), strict: strict)
    return try with(scope, operation: operation)
  }
}
