/// A container with one shared instance, which `@Inject(\.property)` uses.
///
/// ```swift
/// final class AuthContainer: Container, SharedContainer {
///   static let shared = AuthContainer()
/// }
///
/// typealias Inject<T> = ContainerInject<AuthContainer, T>
/// ```
public protocol SharedContainer: AnyObject {
  /// The instance that injection without an explicit container uses.
  static var shared: Self { get }
}
