import ForgeCore

/// Forge's API cannot throw, so a failed resolution stops the program; these
/// are the messages it stops with.
enum ForgeFailure {
  static func message(for error: any Error) -> String {
    switch error {
    case let cycle as DependencyCycleError:
      "Forge: \(cycle.description)"
    case let mismatch as DependencyTypeMismatchError:
      "Forge: \(mismatch.description)"
    case let misdirected as MisdirectedOverride:
      "Forge: \(misdirected.description)"
    default:
      "Forge: resolution failed: \(error)"
    }
  }
}
