/// A group of registrations a feature module owns.
///
/// ```swift
/// struct NetworkModule: ForgeRegisterProtocol {
///   func registerDependencies(in container: ForgeContainerProtocol) {
///     container.register(with: .singleton) { _ in NetworkService() as NetworkServiceProtocol }
///   }
/// }
///
/// struct AppDependencies: ForgeRegisterProtocol {
///   func registerDependencies(in container: ForgeContainerProtocol) {
///     NetworkModule().registerDependencies(in: container)
///     UserModule().registerDependencies(in: container)
///   }
/// }
/// ```
public protocol ForgeRegisterProtocol {
  /// Registers the module's dependencies in `container`.
  func registerDependencies(in container: ForgeContainerProtocol)
}
