// The engine's shared types (diagnostics, DependencyGraph, ValidationReport,
// resolution events) are part of this API.
@_exported import ForgeCore

/// Process-wide settings and helpers.
///
/// ```swift
/// Forge.defaultContainer = TestContainer()
/// let service = Forge.defaultContainer?[keyPath: \.authService]
/// ```
public enum Forge {
  /// The container that `ContainerInject<Container, T>` uses; starts as
  /// ``AppContainer/shared``. May be set to nil.
  public static var defaultContainer: Container? {
    get { defaultContainerStorage.current }
    set { defaultContainerStorage.updateProcessValue { $0 = newValue } }
  }

  /// Runs `operation` with `container` as ``defaultContainer`` for the
  /// current task only (and the tasks it starts): tests running in parallel
  /// can each use their own, as with ForgeInject's `ForgeContainer.withShared`.
  ///
  /// ```swift
  /// Forge.withDefaultContainer(TestContainer()) {
  ///   let viewModel = LoginViewModel()  // ContainerInject<Container, T> reads TestContainer
  /// }
  /// ```
  public static func withDefaultContainer<R>(_ container: Container?, operation: () throws -> R) rethrows -> R {
    try defaultContainerStorage.with(container, operation: operation)
  }

  /// The asynchronous form of `withDefaultContainer(_:operation:)`.
  nonisolated(nonsending)
    public static func withDefaultContainer<R>(
      _ container: Container?,
      operation: () async throws -> R
    ) async rethrows -> R
  {
    try await defaultContainerStorage.with(container) { try await operation() }
  }

  /// Runs `operation` as if the process were rendering Xcode Previews (or, with
  /// `false`, as if it were not): `provide` uses preview factories inside it.
  /// Applies to the current task only.
  ///
  /// ```swift
  /// Forge.withPreviewMode {
  ///   #expect(AppContainer.shared.authService is MockAuthService)
  /// }
  /// ```
  public static func withPreviewMode<R>(_ enabled: Bool = true, operation: () throws -> R) rethrows -> R {
    try PreviewMode.with(enabled, operation: operation)
  }

  /// The asynchronous form of `withPreviewMode(_:operation:)`.
  nonisolated(nonsending)
    public static func withPreviewMode<R>(
      _ enabled: Bool = true,
      operation: () async throws -> R
    ) async rethrows -> R
  {
    try await PreviewMode.with(enabled) { try await operation() }
  }

  /// Forge's `@Inject`, by a name that a file importing both Forge and
  /// ForgeInject still reaches: there, a bare `@Inject` is ForgeInject's
  /// macro, and the compiler answers `@Inject(\.x)` with "missing argument
  /// label 'lazy:'".
  ///
  /// ```swift
  /// import Forge
  /// import ForgeInject
  ///
  /// final class LoginViewModel {
  ///   @Forge.Inject(\.authService) private var authService
  /// }
  /// ```
  public typealias Inject<T> = ContainerInject<AppContainer, T>

  /// Whether `provide` currently uses preview factories.
  public static var isPreviewMode: Bool { PreviewMode.isActive }
}

private let defaultContainerStorage = TaskSwappable<Container?>(AppContainer.shared)
