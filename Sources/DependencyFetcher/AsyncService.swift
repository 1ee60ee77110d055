import ForgeCore

/// A service whose instance an `async` closure makes, once per fetcher;
/// await `fetcher.fetch(_:)` for it.
///
/// However many tasks first fetch it at the same time, the closure runs once
/// and none of them blocks a thread while it waits. A closure that throws
/// keeps nothing: every waiter receives the error and the next fetch makes
/// it again. The closure may fetch synchronous services and await
/// asynchronous ones.
///
/// ```swift
/// extension AsyncService where T == Database {
///   static let database = AsyncService { fetcher in
///     try await Database.open(logger: fetcher.fetch(.logger))
///   }
/// }
///
/// let database = try await Fetcher.createDefault().fetch(.database)
/// ```
public final class AsyncService<T: Sendable>: Sendable, KeyObject {
  /// What a container keys this dependency by: never reused, so a
  /// container need not keep the object alive to tell it from one made
  /// later at the same address (a container forgets a dependency whose
  /// key object is gone).
  @usableFromInline package let keySerial = KeySerial.next()
  /// Tells the containers that key by it when it is gone.
  @usableFromInline package let keyLife = KeyLife.make()

  deinit { keyLife.end() }
  @usableFromInline let make: @Sendable (Fetcher) async throws -> T
  /// Names the service in messages, such as a cycle's path, and graphs;
  /// defaults to its type and where it is declared.
  public let name: String

  /// A service that `make` makes from other services of the same fetcher.
  ///
  /// `fileID` and `line` say where it is declared, for its default name;
  /// leave the defaults.
  public init(
    _ name: String? = nil,
    _ make: @escaping @Sendable (Fetcher) async throws -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.make = make
    self.name = name ?? CodeLocation(fileID: fileID, line: line).defaultName("AsyncService", of: T.self)
  }
}

extension Fetcher {
  /// The service's instance, made on the first fetch by its async closure.
  ///
  /// Runs on the caller's executor: a kept instance is read there, with no
  /// executor switch and no suspension; only a wait for a build suspends.
  ///
  /// ```swift
  /// let database = try await fetcher.fetch(.database)
  /// ```
  @inlinable @inline(__always)
  nonisolated(nonsending) public func fetch<T>(_ service: AsyncService<T>) async throws -> T {
    // Inlinable: a hit is the handle's published read and one load, with
    // the handle read in place (not copied out, retained and released).
    // The service outlives the resolution: once it is gone, the container
    // may drop its slot, which the read uses unretained.
    defer { extendLifetime(service) }
    if let value = store.publishedAsyncObjectValue(serial: service.keySerial, life: service.keyLife, as: T.self) {
      return value
    }
    return try await fetchAsyncMissed(service)
  }

  /// ``fetch(_:)-(AsyncService<T>)`` past the published read, out of line:
  /// the hit's async frame stays small.
  @inlinable @inline(never)
  nonisolated(nonsending) func fetchAsyncMissed<T>(_ service: AsyncService<T>) async throws -> T {
    let handle = try store.resolveKeptObject(
      serial: service.keySerial, key: IdentityKey(service), lifetime: .singleton, name: service.name
    ) {
      asyncHandle(service.name, key: IdentityKey(service), make: service.make)
    }
    // The hit without an await of `value`: awaiting it after the handle's
    // resolution would hop to the generic executor a second time.
    if let value = handle.publishedValue { return value }
    return try await handle.unpublishedValue()
  }

  /// A handle whose instance `make` makes with this fetcher.
  @usableFromInline
  func asyncHandle<T>(
    _ name: String,
    key: IdentityKey,
    make: @escaping @Sendable (Fetcher) async throws -> T
  ) -> AsyncDependency<T> {
    store.asyncHandle(key: key, name: name, lifetime: .singleton, owner: self, factory: make)
  }
}

extension Fetcher.Builder {
  /// Makes `service` with `make` instead, once per fetcher.
  ///
  /// ```swift
  /// let fetcher = Fetcher.create()
  ///   .addOverride(for: .database) { _ in InMemoryDatabase() }
  ///   .done()
  /// ```
  public func addOverride<T>(
    for service: AsyncService<T>,
    make: @escaping @Sendable (Fetcher) async throws -> T
  ) -> Fetcher.Builder {
    addInstallation { fetcher in
      fetcher.store.installOverride(fetcher.override(service, with: make), for: IdentityKey(service))
    }
  }
}

extension Fetcher {
  /// The override of `service` that `Builder/addOverride(for:make:)`
  /// installs, or a test's scope (see `TestOverrides`).
  func override<T>(
    _ service: AsyncService<T>,
    with make: @escaping @Sendable (Fetcher) async throws -> T
  ) -> Override<AsyncDependency<T>> {
    let key = IdentityKey(service)
    let name = "\(service.name) (override)"
    // Unowned: the store holding this override belongs to this fetcher.
    return store.makeOverride(key, name: name, lifetime: .singleton) { [unowned self] in
      asyncHandle(name, key: key, make: make)
    }
  }
}
