/// A key for one dependency, and the closure that makes it.
///
/// Declare services as static members, and fetch them with a ``Fetcher``:
///
/// ```swift
/// extension Service where T == Logger {
///   static let logger = Service(StdOutLogger.init)
/// }
/// extension Service where T == APIEndpointProtocol {
///   static let apiEndpoint = Service(APIEndpoint.default)
/// }
///
/// let logger = fetcher.fetch(.logger)
/// ```
public final class Service<T>: @unchecked Sendable {
  // @unchecked: the only state is `makeService`, which never changes. A
  // Fetcher calls it at most once per fetcher, under the engine's
  // exactly-once guarantee, so it is never run twice at the same time by
  // one fetcher.

  /// Makes the service; a fetcher calls it the first time the service is fetched.
  public let makeService: () -> T
  /// Names the service in messages (a cycle's path, say); defaults to its type.
  public let name: String

  /// A service made by `makeService`.
  public init(_ makeService: @escaping () -> T) {
    self.makeService = makeService
    self.name = "Service<\(String(reflecting: T.self))>"
  }

  /// A service with a name of its own for messages, made by `makeService`.
  ///
  /// ```swift
  /// static let database = Service("database") { SQLiteDatabase() }
  /// ```
  public init(_ name: String, _ makeService: @escaping () -> T) {
    self.makeService = makeService
    self.name = name
  }

  /// A service that is an existing instance.
  ///
  /// Disfavoured so that `Service { Thing() }` means "made by this closure",
  /// not "this closure is the instance".
  @_disfavoredOverload
  public convenience init(_ service: T) {
    self.init({ service })
  }
}
