#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Why ``ForgeContainerProtocol/resolve()`` failed.
///
/// A dependency cycle is reported as `DependencyCycleError` (from ForgeCore,
/// re-exported here), with the whole path; an error thrown by a builder
/// reaches the caller unchanged.
///
/// ```swift
/// do {
///   let service: TaskServiceProtocol = try container.resolve()
/// } catch let error as ForgeContainerError {
///   switch error {
///   case .missingFactoryMethod(let type): print("No factory registered for \(type)")
///   case .typeMismatch(let type): print("Factory exists but returned wrong type for \(type)")
///   }
/// }
/// ```
///
/// The type is named in full. When the failure happened inside a builder,
/// the chain of types being built follows it, and a type mismatch names the
/// registered type that the request relates to:
/// `App.Clock (registered as App.SystemClock; chain: App.Scheduler → App.Clock)`.
public enum ForgeContainerError: LocalizedError, Equatable {
  /// Nothing is registered for the type, named in full (module-qualified).
  case missingFactoryMethod(_ type: String)
  /// A registration exists for the key but produces another type, or the
  /// type was registered as a protocol it conforms to (or the reverse).
  case typeMismatch(_ type: String)

  public var errorDescription: String? {
    switch self {
    case .missingFactoryMethod(let type): "Missing factory method for instance: \(type)"
    case .typeMismatch(let type): "Type mismatch when resolving instance: \(type)"
    }
  }
}

extension ForgeContainerError {
  /// The type name followed by what explains the failure, if anything.
  static func subject(_ type: String, details: [String?]) -> String {
    let details = details.compactMap { $0 }
    return details.isEmpty ? type : "\(type) (\(details.joined(separator: "; ")))"
  }

  /// The type that failed, without the details ``subject(_:details:)``
  /// adds after it.
  var failedType: String {
    let text =
      switch self {
      case .missingFactoryMethod(let text), .typeMismatch(let text): text
      }
    let detailStarts = [" (registered as ", " (chain: ", " (released: "].compactMap {
      text.firstRange(of: $0)?.lowerBound
    }
    return detailStarts.min().map { String(text[..<$0]) } ?? text
  }

  /// The type nothing is registered for, when that is the failure.
  var missingType: String? {
    if case .missingFactoryMethod = self { failedType } else { nil }
  }
}

extension ForgeContainerError {
  /// How to fix the failure, naming the type that failed; one wording for
  /// a resolution's stop and a validation report.
  var fix: String {
    let failed = failedType
    return switch self {
    case .missingFactoryMethod:
      "register \(failed) exactly as it is resolved (container.register(with: .singleton) { _ in … as \(failed) })"
    case .typeMismatch:
      """
      register the instance as \(failed), the type it is resolved as \
      (container.register(with: .singleton) { _ in … as \(failed) }), or resolve it \
      as the type it is registered as
      """
    }
  }

  /// What `container` has registered, for a diagnostic's reason; nil when
  /// nothing is.
  static func registeredNote(in container: ForgeContainer?) -> String? {
    let registered = container?.registeredTypeNames ?? []
    return registered.isEmpty ? nil : "Registered types: \(registered.joined(separator: ", "))."
  }
}
