import ForgeCore

/// How long a ``ForgeContainer`` keeps what a registration builds.
///
/// ```swift
/// container.register(with: .singleton) { _ in DatabaseService() as DatabaseServiceProtocol }
/// container.register(with: .transient) { _ in FormValidator() }
/// container.register(with: .weak) { _ in ImageCache() as ImageCacheProtocol }
/// ```
public enum ForgeRetainPolicy: Equatable, Sendable {
  /// A new instance on every resolution.
  case transient
  /// One instance, built on first resolution, kept for the container's
  /// lifetime or until ``ForgeContainerProtocol/reset(preserving:)``.
  case singleton
  /// Shared while anyone holds a strong reference to it; built again after
  /// the last one goes. Values that are not class instances cannot be held
  /// weakly and are built on every resolution.
  case weak

  @usableFromInline var lifetime: Lifetime {
    switch self {
    case .transient: .transient
    case .singleton: .singleton
    case .weak: .weak
    }
  }
}
