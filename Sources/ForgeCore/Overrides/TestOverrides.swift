/// Overrides for one test, declared in any dialect, for ForgeTesting's
/// `.isolated` trait and `withIsolatedContainers`: each dialect adds the
/// methods that name its own dependencies, shaped like its container-wide
/// overrides.
///
/// ```swift
/// @Test(.isolated(pod, fetcher) {
///   $0.overrideProvider(clockProvider, in: pod) { _ in FixedClock() }
///   $0.addOverride(for: .clock, in: fetcher) { FixedClock() }
/// })
/// func expiry() { … }
/// ```
///
/// The overrides apply to the test's task (and the tasks it starts) only,
/// as a `withOverrides` scope's do; an override that keeps its instance
/// keeps it for that test.
public struct TestOverrides: Sendable {
  /// The scope's entries, by the dependency each one replaces.
  package private(set) var entries: [OverrideScope.Target: AnyOverride] = [:]

  package init() {}

  /// Adds `entry`; a later entry for the same dependency replaces it.
  package mutating func add<T>(_ entry: Override<T>) {
    entries[entry.slot.target] = entry
  }
}
