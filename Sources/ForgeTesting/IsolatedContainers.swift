import Forge
@_exported import ForgeCore
import Testing

/// A Swift Testing trait that runs each test in a scope of its own: fresh
/// singletons and cached instances of the containers it names, built and
/// kept for that test only, and the overrides it declares.
///
/// ```swift
/// @Suite(.isolated(AppContainer.shared, signUpPod))
/// struct SignUpTests {
///   @Test func freshDraft() { … }  // its own singletons, whatever runs beside it
/// }
///
/// @Test(.isolated(AppContainer.shared) { $0.override(\.clock) { FixedClock() } })
/// func expiry() { … }
/// ```
///
/// Other dialects declare their overrides with `TestOverrides`, in one
/// trait for containers of any dialects:
///
/// ```swift
/// @Test(.isolated(pod, fetcher) {
///   $0.overrideProvider(clockProvider, in: pod) { _ in FixedClock() }
///   $0.addOverride(for: .session, in: fetcher) { MockSession() }
/// })
/// func signUp() { … }
/// ```
///
/// On a suite it applies to every test in it, each on its own. Tests running
/// in parallel never see each other's instances or overrides: the scope is
/// bound to the test's task, as `withOverrides` is. What the containers kept
/// before the test stays theirs and is not served inside it; what the test
/// builds goes with its scope.
///
/// Inside the test, the containers' own APIs stay within it:
///
/// - an override or a registration it installs (Forge's
///   `override(_:with:)`, SwiftPod's `overrideProvider`, ForgeInject's
///   `register`) serves that test only, until it is removed or the test
///   ends;
/// - its resets (`resetCached()`, `resetAll()`, `reset(preserving:)`,
///   `clearCachedInstances(forScope:)`) clear the instances it built, not
///   the container's nor another test's;
/// - ForgeInject's `resolveAll(conforming:)` lists the test's instances, and
///   an observer added in the test hears the test's resolutions only;
/// - `shutdown()` stops the instances the test built, and the test's later
///   resolutions from that container fail; the container, and every other
///   test, goes on as before.
///
/// ```swift
/// @Test(.isolated(AppContainer.shared))
/// func closesTheDatabase() async {
///   _ = AppContainer.shared.database
///   #expect(await AppContainer.shared.shutdown().stopped == ["AppContainer.database"])
/// }
/// ```
public struct IsolatedContainers: TestTrait, SuiteTrait, TestScoping {
  let containers: [any DependencyContainer]
  let strict: StrictMode
  let overrides: @Sendable () -> [OverrideScope.Target: AnyOverride]

  /// Every test of a suite gets its own scope.
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    try await OverrideScope.isolating(
      containers, entries: overrides(), strict: strict, strictOwner: strictOwner(strict, test: test)
    ) { try await function() }
  }
}

extension Test {
  /// How a strict-mode violation names this test: as the test list shows
  /// it, and where it is declared. In Forge, SwiftPod and DependencyFetcher
  /// the violation stops the test process, and its message is then all
  /// that says which of the tests running in parallel broke the rule.
  var strictModeName: String {
    "“\(displayName ?? name)” (\(sourceLocation.fileName):\(sourceLocation.line))"
  }
}

/// The name a scope with `strict` gives its violations: `test`'s (the
/// current test's when nil), and none when nothing is forbidden.
func strictOwner(_ strict: StrictMode, test: Test? = Test.current) -> String? {
  strict == .off ? nil : test?.strictModeName
}

extension Trait where Self == IsolatedContainers {
  /// Isolates `containers` (of any dialect) for each test; `strict` says
  /// which real factories the test must not run (see `StrictMode`).
  public static func isolated(_ containers: any DependencyContainer..., strict: StrictMode = .off) -> Self {
    IsolatedContainers(containers: containers, strict: strict, overrides: { [:] })
  }

  /// Isolates `containers` (of any dialect) for each test, with the
  /// overrides `configure` declares (in any dialect: see
  /// `TestOverrides`); `strict` says which real factories the test must
  /// not run (see `StrictMode`).
  public static func isolated(
    _ containers: any DependencyContainer...,
    strict: StrictMode = .off,
    overrides configure: @escaping @Sendable (inout TestOverrides) -> Void
  ) -> Self {
    IsolatedContainers(containers: containers, strict: strict, overrides: { TestOverrides(configure).entries })
  }

  /// Isolates `container` for each test, with the overrides `configure`
  /// declares (as in `withOverrides`), and `others` too; `strict` says
  /// which real factories the test must not run (see `StrictMode`).
  public static func isolated<C: OverridableContainer>(
    _ container: C,
    _ others: any DependencyContainer...,
    strict: StrictMode = .off,
    overrides configure: @escaping @Sendable (inout OverrideBuilder<C>) -> Void
  ) -> Self {
    IsolatedContainers(
      containers: [container] + others, strict: strict, overrides: { container.overrideEntries(configure) })
  }
}

/// Runs `operation` as ``IsolatedContainers`` runs a test: with fresh
/// singletons and cached instances of `containers`, for the current task
/// only. For XCTest, or for part of a test.
///
/// ```swift
/// final class SignUpTests: XCTestCase {
///   func testFreshDraft() async throws {
///     try await withIsolatedContainers(AppContainer.shared, signUpPod) {
///       …
///     }
///   }
/// }
/// ```
@discardableResult
public func withIsolatedContainers<R>(
  _ containers: any DependencyContainer...,
  strict: StrictMode = .off,
  operation: () async throws -> R
) async rethrows -> R {
  try await OverrideScope.isolating(containers, strict: strict, strictOwner: strictOwner(strict)) {
    try await operation()
  }
}

/// The synchronous form of `withIsolatedContainers(_:strict:operation:)`.
@discardableResult
public func withIsolatedContainers<R>(
  _ containers: any DependencyContainer...,
  strict: StrictMode = .off,
  operation: () throws -> R
) rethrows -> R {
  try OverrideScope.isolating(containers, strict: strict, strictOwner: strictOwner(strict), operation: operation)
}

/// Runs `operation` with fresh singletons and cached instances of
/// `containers` and the overrides `configure` declares, in any dialect
/// (see `TestOverrides`), for the current task only.
///
/// ```swift
/// try await withIsolatedContainers(pod) {
///   $0.overrideProvider(clockProvider, in: pod) { _ in FixedClock() }
/// } operation: {
///   …
/// }
/// ```
@discardableResult
public func withIsolatedContainers<R>(
  _ containers: any DependencyContainer...,
  strict: StrictMode = .off,
  overrides configure: (inout TestOverrides) -> Void,
  operation: () async throws -> R
) async rethrows -> R {
  let entries = TestOverrides(configure).entries
  return try await OverrideScope.isolating(
    containers, entries: entries, strict: strict, strictOwner: strictOwner(strict)
  ) { try await operation() }
}

/// The synchronous form of `withIsolatedContainers(_:strict:overrides:operation:)`.
@discardableResult
public func withIsolatedContainers<R>(
  _ containers: any DependencyContainer...,
  strict: StrictMode = .off,
  overrides configure: (inout TestOverrides) -> Void,
  operation: () throws -> R
) rethrows -> R {
  try OverrideScope.isolating(
    containers, entries: TestOverrides(configure).entries, strict: strict, strictOwner: strictOwner(strict),
    operation: operation)
}

extension TestOverrides {
  /// The overrides `configure` declares.
  init(_ configure: (inout TestOverrides) -> Void) {
    self.init()
    configure(&self)
  }
}
