import ForgeCore

extension ForgeContainer {
  /// The container that `@Injectable`, `@Inject` and `#inject()` resolve from.
  ///
  /// Set it once at launch, before any injected type is created:
  ///
  /// ```swift
  /// let container = ForgeContainer()
  /// AppDependencies().registerDependencies(in: container)
  /// ForgeContainer.shared = container
  /// ```
  ///
  /// Setting it while it already holds a container stops with a message:
  /// replacing the container under running code is almost always a bug.
  /// Set it to nil first to replace it on purpose; tests use
  /// `withShared(_:operation:)` instead, which applies to
  /// the current task only.
  public static var shared: ForgeContainerProtocol? {
    get { sharedStorage.current }
    set {
      sharedStorage.updateProcessValue { current in
        if current != nil, newValue != nil {
          let diagnostic = ForgeDiagnostic(
            .containerReplaced,
            "ForgeContainer.shared is already set",
            reason: "Set it once, at launch, before any @Injectable type is created.",
            fix: """
              use ForgeContainer.withShared(container) { … } to run code (a test, say) with \
              another container, for the current task only; to replace the shared container \
              on purpose, set it to nil first.
              """
          )
          fatalError("ForgeInject: \(diagnostic)")
        }
        current = newValue
      }
    }
  }

  /// Runs `operation` with `container` as ``shared``, for the current task
  /// only: tests running in parallel can each use their own container.
  ///
  /// ```swift
  /// let container = ForgeContainer()
  /// container.register(with: .singleton) { _ in MockNetwork() as NetworkServiceProtocol }
  /// ForgeContainer.withShared(container) {
  ///   let viewModel = ViewModel()  // @Injectable resolves from `container`
  /// }
  /// ```
  public static func withShared<R>(
    _ container: ForgeContainerProtocol,
    operation: () throws -> R
  ) rethrows -> R {
    try sharedStorage.with(container, operation: operation)
  }

  /// The asynchronous form of `withShared(_:operation:)`.
  nonisolated(nonsending)
    public static func withShared<R>(
      _ container: ForgeContainerProtocol,
      operation: () async throws -> R
    ) async rethrows -> R
  {
    try await sharedStorage.with(container) { try await operation() }
  }
}

/// The process-wide container, which a task can swap for itself (one
/// mechanism with Forge's `Forge.defaultContainer`).
let sharedStorage = TaskSwappable<ForgeContainerProtocol?>(nil)
