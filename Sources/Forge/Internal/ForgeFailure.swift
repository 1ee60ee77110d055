import ForgeCore

/// Forge's API cannot throw, so a failed resolution stops the program; these
/// are the messages it stops with.
enum ForgeFailure {
  static func message(for error: any Error) -> String {
    // Forge's factories cannot throw: only the engine's errors reach here.
    "Forge: \(ForgeDiagnostic.of(error))"
  }
}
