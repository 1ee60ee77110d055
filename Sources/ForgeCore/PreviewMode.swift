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
  package static var forced: Bool? { taskForced }
  @TaskLocal private static var taskForced: Bool?

  @usableFromInline package static var isActive: Bool { forced ?? processIsPreview }

  /// Whether preview factories might apply anywhere: false lets reads skip
  /// the task-local entirely.
  @inlinable
  package static var mightBeActive: Bool { processIsPreview || Gates.forcedPreviewScopes.value != 0 }

  /// Runs `operation` with preview mode forced to `enabled` for this task.
  package static func with<R>(_ enabled: Bool, operation: () throws -> R) rethrows -> R {
    try Gates.forcedPreviewScopes.counting { try $taskForced.withValue(enabled, operation: operation) }
  }

  /// The asynchronous form of ``with(_:operation:)``.
  nonisolated(nonsending)
  package static func with<R>(_ enabled: Bool, operation: () async throws -> R) async rethrows -> R {
    try await Gates.forcedPreviewScopes.counting { try await $taskForced.withValue(enabled) { try await operation() } }
  }
}
