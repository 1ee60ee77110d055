/// Generates an initialiser with one parameter per stored `let` that has a
/// type annotation and no initial value, each defaulting to resolution from
/// ``ForgeContainer/shared``.
///
/// ```swift
/// @Injectable
/// final class ViewModel {
///   let networkService: NetworkServiceProtocol
/// }
///
/// let production = ViewModel()                                  // resolved
/// let test = ViewModel(networkService: MockNetworkService())    // injected
/// ```
///
/// Works on classes, structs and actors. Which properties are injected:
///
/// - a stored `let` with a type annotation and no initial value is, unless
///   its type is a plain value of the standard library (`Int`, `String`,
///   `Bool`, … or an optional of one): those are an error with a fix-it,
///   since no container registers them;
/// - `static` properties, properties with an initial value, computed
///   properties and `@Inject` properties are left alone;
/// - a stored `var` needs an initial value (or to be optional): the
///   initialiser does not set it, so one without is an error with a fix-it.
///
/// A dependency that cannot be resolved stops with a message naming the
/// type, the property and the missing type.
@attached(member, names: named(init))
public macro Injectable() = #externalMacro(module: "ForgeInjectMacros", type: "InjectableMacro")

/// Resolves the property from ``ForgeContainer/shared`` on first access
/// (or while the owner initialises, with `lazy: false`) and keeps it.
///
/// ```swift
/// final class Coordinator {
///   @Inject var analytics: AnalyticsServiceProtocol
///   @Inject(lazy: false) var logger: LoggerProtocol
/// }
/// ```
///
/// In an `@Observable` type, write `@ObservationIgnored` after it (Swift
/// rejects the getter of an accessor macro written after
/// `@ObservationIgnored`); the macro says so, with a fix-it, otherwise:
///
/// ```swift
/// @Observable
/// final class LoginViewModel {
///   @Inject @ObservationIgnored var authService: AuthServiceProtocol
/// }
/// ```
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_))
public macro Inject(lazy: Bool = true) = #externalMacro(module: "ForgeInjectMacros", type: "InjectMacro")

/// Resolves the type the context expects from ``ForgeContainer/shared``.
///
/// ```swift
/// let service: NetworkServiceProtocol = #inject()
/// lazy var repository: UserRepositoryProtocol = #inject()
/// ```
@freestanding(expression)
public macro inject<T>() -> T = #externalMacro(module: "ForgeInjectMacros", type: "InjectExpressionMacro")
