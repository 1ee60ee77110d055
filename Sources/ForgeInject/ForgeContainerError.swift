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
public enum ForgeContainerError: LocalizedError, Equatable {
  /// Nothing is registered for the type, named in full (module-qualified).
  case missingFactoryMethod(_ type: String)
  /// A registration exists for the key but produces another type.
  case typeMismatch(_ type: String)

  public var errorDescription: String? {
    switch self {
    case .missingFactoryMethod(let type): "Missing factory method for instance: \(type)"
    case .typeMismatch(let type): "Type mismatch when resolving instance: \(type)"
    }
  }
}
