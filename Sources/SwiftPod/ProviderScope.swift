import ForgeCore

/// How long a pod keeps what a provider builds, and which narrower scopes a
/// clear takes along.
///
/// Scopes are matched by type: a fresh `SignUpScope()` names the same scope
/// as any other instance of `SignUpScope`.
///
/// ```swift
/// final class SignUpScope: ProviderScope {
///   let children: [any ProviderScope] = [SignUpStepScope()]
/// }
/// pod.clearCachedInstances(forScope: SignUpScope())  // and SignUpStepScope's
/// ```
public protocol ProviderScope: Sendable {
  /// The scopes cleared along with this one.
  var children: [ProviderScope] { get }
}

/// Never cached: every resolution runs the builder.
///
/// ```swift
/// let formProvider = Provider(scope: AlwaysCreateNewScope()) { _ in SignUpForm() }
/// ```
public struct AlwaysCreateNewScope: ProviderScope {
  public let children: [ProviderScope] = []
  public init() {}
}

/// Cached for the pod's lifetime; `clearCachedInstances` ignores it. The
/// default scope of a ``Provider``.
///
/// ```swift
/// let apiProvider = Provider(scope: SingletonScope()) { _ in APIClient() }
/// ```
public struct SingletonScope: ProviderScope {
  public let children: [ProviderScope] = []
  public init() {}
}

extension ProviderScope {
  /// The engine lifetime of this scope.
  var lifetime: Lifetime {
    switch self {
    case is AlwaysCreateNewScope: .transient
    case is SingletonScope: .singleton
    default: .scoped(ObjectIdentifier(type(of: self)))
    }
  }

  /// This scope and every scope below it, by type, each once.
  /// Names a custom scope for graphs and reports, by its type, with the
  /// scopes clearing it clears (for validation's lifetime checks).
  func registerName() {
    guard case .scoped(let id) = lifetime else { return }
    ScopeNames.register(
      id,
      name: String(describing: type(of: self)),
      clears: Set(
        lifetimesClearedWithIt.compactMap {
          if case .scoped(let cleared) = $0 { cleared } else { nil }
        })
    )
  }

  var lifetimesClearedWithIt: Set<Lifetime> {
    var found: Set<Lifetime> = []
    var seen: Set<ObjectIdentifier> = []
    var pending: [ProviderScope] = [self]
    while let scope = pending.popLast() {
      guard seen.insert(ObjectIdentifier(type(of: scope))).inserted else { continue }
      if case .scoped = scope.lifetime { found.insert(scope.lifetime) }
      pending += scope.children
    }
    return found
  }
}
