#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// Whether resolutions should use preview factories.
///
/// The process environment is read once, the first time a dependency with a
/// preview factory is resolved, never on every resolution. Tests can act as
/// a preview for the duration of a closure through `forced`, a task-local, so
/// parallel tests do not affect each other.
@usableFromInline package enum PreviewMode {
  /// Whether Xcode launched this process to render previews.
  @usableFromInline package static let processIsPreview: Bool = {
    guard let raw = getenv("XCODE_RUNNING_FOR_PREVIEWS") else { return false }
    return String(cString: raw) == "1"
  }()

  /// Set by a dialect's "run as a preview" API, through ``with(_:operation:)``;
  /// nil follows the process.
  package static var forced: Bool? { taskForced?.enabled }
  @TaskLocal private static var taskForced: ForcedPreview?

  /// A forced preview mode, alive as long as a task holds it: the gate that
  /// makes reads check it stays raised that long (see ``Gates``).
  private final class ForcedPreview: Sendable {
    let enabled: Bool
    init(_ enabled: Bool) {
      self.enabled = enabled
      Gates.forcedPreviewScopes.add(1)
    }
    deinit { Gates.forcedPreviewScopes.add(-1) }
  }

  /// Whether preview factories serve resolutions on this task now; never
  /// while the thread validates a container, which checks the real factories.
  @usableFromInline package static var isActive: Bool {
    (forced ?? processIsPreview) && ResolutionContext.currentIfPresent?.validation == nil
  }

  /// Whether preview factories might apply anywhere: false lets reads skip
  /// the task-local entirely.
  @inlinable
  package static var mightBeActive: Bool { processIsPreview || Gates.forcedPreviewScopes.value != 0 }

  /// Runs `operation` with preview mode forced to `enabled` for this task
  /// and the tasks that inherit its task-locals.
  package static func with<R>(_ enabled: Bool, operation: () throws -> R) rethrows -> R {
    try $taskForced.withValue(ForcedPreview(enabled), operation: operation)
  }

  /// The asynchronous form of ``with(_:operation:)``.
  nonisolated(nonsending)
    package static func with<R>(_ enabled: Bool, operation: () async throws -> R) async rethrows -> R
  {
    try await $taskForced.withValue(ForcedPreview(enabled)) { try await operation() }
  }
}
