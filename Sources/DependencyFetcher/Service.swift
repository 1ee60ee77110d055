import ForgeCore

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
public final class Service<T>: @unchecked Sendable, KeyObject {
  // @unchecked: the only state is the closures, the name and the key's
  // serial and life, which never change. A Fetcher calls `make` at most
  // once per fetcher, under the engine's exactly-once guarantee, so it is
  // never run twice at the same time by one fetcher.

  /// What a container keys this dependency by: never reused, so a
  /// container need not keep the object alive to tell it from one made
  /// later at the same address (a container forgets a dependency whose
  /// key object is gone).
  @usableFromInline package let keySerial = KeySerial.next()
  /// Tells the containers that key by it when it is gone.
  @usableFromInline package let keyLife = KeyLife.make()

  deinit { keyLife.end() }

  /// Makes the service; a fetcher calls it the first time the service is
  /// fetched. For a service declared with ``init(_:fileID:line:)-((Fetcher)->T,_,_)``,
  /// it makes the service with a new fetcher that has no overrides.
  public let makeService: () -> T
  /// Makes the service for the fetcher that fetches it.
  @usableFromInline let make: (Fetcher) -> T
  /// Names the service in messages (a cycle's path, say) and graphs;
  /// defaults to its type and where it is declared
  /// (`Service<MyApp.Clock> (Services.swift:12)`).
  public let name: String
  /// Where the service is declared: a failed fetch stops there.
  @usableFromInline let location: CodeLocation

  /// A service made by `makeService`.
  ///
  /// `fileID` and `line` say where it is declared, in this initialiser and
  /// the others; leave the defaults. A fetch of this service that fails
  /// stops the program there.
  public convenience init(_ makeService: @escaping () -> T, fileID: StaticString = #fileID, line: UInt = #line) {
    self.init(Self.defaultName(fileID, line), makeService, fileID: fileID, line: line)
  }

  /// A service made from other services of the fetcher that fetches it,
  /// so a fetcher's overrides reach the services built from them.
  ///
  /// ```swift
  /// extension Service where T == UserRepository {
  ///   static let userRepository = Service { fetcher in
  ///     UserRepository(api: fetcher.fetch(.apiEndpoint), logger: fetcher.fetch(.logger))
  ///   }
  /// }
  /// ```
  public convenience init(
    _ make: @escaping @Sendable (Fetcher) -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.init(Self.defaultName(fileID, line), make, fileID: fileID, line: line)
  }

  /// A service with a name of its own for messages, made by `makeService`.
  ///
  /// ```swift
  /// static let database = Service("database") { SQLiteDatabase() }
  /// ```
  public init(_ name: String, _ makeService: @escaping () -> T, fileID: StaticString = #fileID, line: UInt = #line) {
    self.makeService = makeService
    self.make = { _ in makeService() }
    self.name = name
    self.location = CodeLocation(fileID: fileID, line: line)
  }

  /// A service with a name of its own for messages, made from other
  /// services of the fetcher that fetches it.
  ///
  /// ```swift
  /// static let cache = Service("cache") { fetcher in Cache(database: fetcher.fetch(.database)) }
  /// ```
  public init(
    _ name: String,
    _ make: @escaping @Sendable (Fetcher) -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.makeService = { make(Fetcher.createDefault()) }
    self.make = make
    self.name = name
    self.location = CodeLocation(fileID: fileID, line: line)
  }

  private static func defaultName(_ fileID: StaticString, _ line: UInt) -> String {
    CodeLocation(fileID: fileID, line: line).defaultName("Service", of: T.self)
  }

  /// A service that is an existing instance.
  ///
  /// Disfavoured so that `Service { Thing() }` means "made by this closure",
  /// not "this closure is the instance".
  @_disfavoredOverload
  public convenience init(_ service: T, fileID: StaticString = #fileID, line: UInt = #line) {
    self.init({ service }, fileID: fileID, line: line)
  }
}
