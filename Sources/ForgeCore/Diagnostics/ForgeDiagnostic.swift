/// A failure a user can cause, in the one form every Forge module reports it.
///
/// Each message starts with a stable identifier, says what failed, the chain
/// of dependencies that led there, why, and how to fix it:
///
/// ```text
/// [Forge.cycle] Dependency cycle: Feed.store → Store.feed → Feed.store. Building
/// Feed.store needs Feed.store itself, so it can never be built. To fix it, …
/// ```
///
/// The identifiers are listed, each with its cause and fix, in the
/// "Diagnostics" article of ForgeCore's documentation.
public struct ForgeDiagnostic: Sendable, Hashable, CustomStringConvertible {
  /// The kind of failure; stable across releases, so it can be searched for.
  public enum ID: String, CaseIterable, Sendable {
    /// A dependency needs itself, directly or through others.
    case cycle = "Forge.cycle"
    /// A dependency is resolved as another type than its factory produces
    /// or than it is registered as.
    case typeMismatch = "Forge.typeMismatch"
    /// Nothing is registered for a requested type (ForgeInject).
    case missing = "Forge.missing"
    /// A builder threw where the API cannot throw (an injected property).
    case builderFailed = "Forge.builderFailed"
    /// A dependency declared with `unimplemented(_:)` was resolved without
    /// an override.
    case unimplemented = "Forge.unimplemented"
    /// A key path was overridden whose property does not call `provide`.
    case overrideNotProvided = "Forge.overrideNotProvided"
    /// A key path override would land on another dependency than the one
    /// it names.
    case overrideMisdirected = "Forge.overrideMisdirected"
    /// A kept `provide` in a function with parameters uses one key for
    /// every argument.
    case keyPerArgument = "Forge.keyPerArgument"
    /// An injection needs a default or shared container that is not set.
    case noContainer = "Forge.noContainer"
    /// `ForgeContainer.shared` was set while it held a container.
    case containerReplaced = "Forge.containerReplaced"
    /// A longer-lived dependency holds a shorter-lived one that a reset
    /// replaces (a captive dependency), found by validation.
    case lifetimeMismatch = "Forge.lifetimeMismatch"
    /// A test in strict mode resolved a dependency it must override.
    case strictMode = "Forge.strictMode"
    /// A container was resolved from after its `shutdown()`.
    case shutDown = "Forge.shutDown"
    /// Forge itself broke one of its rules; please report it.
    case internalError = "Forge.internalError"
  }

  /// The kind of failure.
  public let id: ID
  /// What failed, as one sentence without its final period.
  public let summary: String
  /// The dependencies being built when it failed, outermost first, ending
  /// with the one that failed; empty when nothing was being built.
  public let chain: [String]
  /// Why it cannot work, when the summary does not say it already.
  public let reason: String?
  /// How to fix it, completing "To fix it, …".
  public let fix: String

  /// A diagnostic; `fix` completes the sentence "To fix it, …".
  public init(_ id: ID, _ summary: String, chain: [String] = [], reason: String? = nil, fix: String) {
    self.id = id
    self.summary = summary
    self.chain = chain
    self.reason = reason
    self.fix = fix
  }

  /// A broken rule of Forge's own, which the user can only report.
  @usableFromInline
  package static func internalError(_ summary: String, reason: String? = nil) -> ForgeDiagnostic {
    ForgeDiagnostic(.internalError, summary, reason: reason, fix: "report it as a Forge bug.")
  }

  /// The diagnostic `error` carries when it is one of the engine's own;
  /// nil for any other error (a factory's own, say).
  package static func ofEngineError(_ error: any Error) -> ForgeDiagnostic? {
    switch error {
    case let cycle as DependencyCycleError: cycle.diagnostic
    case let mismatch as DependencyTypeMismatchError: mismatch.diagnostic
    case let misdirected as MisdirectedOverride: misdirected.diagnostic
    case let diagnosed as DiagnosedFailure: diagnosed.diagnostic
    case let strict as StrictModeViolation: strict.diagnostic
    case let shutDown as ContainerShutDown: shutDown.diagnostic
    default: nil
    }
  }

  /// The diagnostic an engine error carries; for any other error, which
  /// only a Forge bug lets through, an internal one.
  package static func of(_ error: any Error) -> ForgeDiagnostic {
    ofEngineError(error) ?? internalError("resolution failed: \(error)")
  }

  /// The diagnostic in one line: identifier, summary, chain, reason, fix.
  /// The chain is left out when the summary ends with it already (a cycle
  /// validated from one of its own members).
  public var description: String {
    var text = "[\(id.rawValue)] \(summary)."
    let renderedChain = chain.joined(separator: " → ")
    if chain.count > 1, !summary.hasSuffix(renderedChain) { text += " Chain: \(renderedChain)." }
    if let reason { text += " \(reason)" }
    text += " To fix it, \(fix)"
    return text
  }
}
