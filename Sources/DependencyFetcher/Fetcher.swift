// The engine's shared types (diagnostics, DependencyGraph, ValidationReport,
// resolution events) are part of this API.
@_exported import ForgeCore

/// Fetches services, making each one once and returning the same instance
/// afterwards. No global state: every fetcher is independent.
///
/// ```swift
/// let fetcher = Fetcher.createDefault()
/// let logger = fetcher.fetch(.logger)
///
/// // In tests
/// let mocked = Fetcher.create()
///   .addOverride(for: Service.logger, instance: MockLogger())
///   .done()
/// ```
///
/// Thread-safe. A service whose closure fetches another service from the
/// same fetcher works; a cycle stops with a message naming every service on
/// the path.
public final class Fetcher: Sendable {
  @usableFromInline let store: SlotStore<IdentityKey>
  /// The store's ``SlotStore/fastSerialWord``, kept here so that a hit
  /// reads it without going through the store.
  @usableFromInline let fastSerialWord: FastSerialWord

  init() {
    store = SlotStore()
    fastSerialWord = store.fastSerialWord
  }

  /// A fetcher without overrides.
  public static func createDefault() -> Fetcher { Fetcher() }

  /// Starts a fetcher with overrides.
  public static func create() -> Builder { Builder() }

  /// The service's instance, made on the first fetch.
  @inlinable @inline(__always)
  public func fetch<T>(_ service: Service<T>) -> T {
    // Inlined: the caller's call specialises the engine's common cases for
    // its `T`, and a hit pays for no call. The hit is read here and ends
    // with a branch, to the copy or to the miss (one call with two
    // arguments), so that it needs no frame. The service outlives the read:
    // once it is gone, the fetcher may drop its slot, which the engine reads
    // unretained.
    defer { withExtendedLifetime(service as AnyObject) {} }
    return store.resolveCachedObject(
      serial: service.keySerial, life: service.keyLife, as: T.self, fastSerialWord: fastSerialWord
    ) { miss in
      if case .general = miss { return Self.fetchOverridden(self, service) }
      return Self.fetchMissed(self, service, miss)
    }
  }

  /// ``fetch(_:)``'s miss while the fetcher holds overrides (or an
  /// observer): the override, or the instance of a service not overridden,
  /// through the service's cached slot, in a small function of its own;
  /// else ``fetchMissed(_:_:_:)``.
  @inlinable @inline(never)
  static func fetchOverridden<T>(_ fetcher: Fetcher, _ service: Service<T>) -> T {
    do {
      // The service outlives the read (see fetchMissed(_:_:)).
      defer { withExtendedLifetime(service as AnyObject) {} }
      if let value = try fetcher.store.servedPastObjectOverrides(
        serial: service.keySerial, life: service.keyLife, as: T.self)
      {
        return value
      }
    } catch {
      fetcher.stop(error, at: service.location)
    }
    return fetchMissed(fetcher, service, .general)
  }

  /// ``fetch(_:)`` past the cached read: `miss` says what the read learnt.
  /// Static, with the fetcher an ordinary argument: a method would take it
  /// in the register that carries `self`, which the calling hit would then
  /// have to save and restore, giving it a frame; this way the miss is the
  /// hit's last call, a jump.
  @inlinable @inline(never)
  static func fetchMissed<T>(_ fetcher: Fetcher, _ service: Service<T>, _ miss: ObjectReadMiss) -> T {
    fetcher.fetchMissed(service, miss)
  }

  /// ``fetchMissed(_:_:_:)``'s work, inlined into it.
  @inlinable @inline(__always)
  func fetchMissed<T>(_ service: Service<T>, _ miss: ObjectReadMiss) -> T {
    do {
      // The service outlives the fetch: once it is gone, the fetcher may
      // drop its slot, which the engine uses unretained.
      defer { withExtendedLifetime(service as AnyObject) {} }
      return try store.resolveCachedObjectMissed(
        miss,
        serial: service.keySerial,
        life: service.keyLife,
        key: IdentityKey(service),
        lifetime: .singleton,
        name: service.name
      ) {
        service.make(self)
      }
    } catch {
      stop(error, at: service.location)
    }
  }

  /// Stops the program with the message for a failed fetch, at the
  /// declaration of the service that failed; out of line, so that inlined
  /// fetches stay small.
  @usableFromInline @inline(never)
  func stop(_ error: any Error, at location: CodeLocation) -> Never {
    // Validating: the run ends here and reports the error instead.
    ValidationSession.failIfValidating(error)
    StopSite(dialect: "DependencyFetcher", location: location).stop(error)
  }
}

extension Fetcher {
  /// Collects overrides; every ``done()`` makes a new, independent fetcher.
  ///
  /// ```swift
  /// let fetcher = Fetcher.create()
  ///   .addOverride(for: Service.database, makeService: { InMemoryDatabase() })
  ///   .done()
  /// ```
  public final class Builder {
    private var overrides: [(Fetcher) -> Void] = []

    init() {}

    /// Makes `service` with `makeService` instead, once per fetcher.
    public func addOverride<T>(for service: Service<T>, makeService: @escaping () -> T) -> Builder {
      install(service, UncheckedMake { _ in makeService() })
    }

    /// Makes `service` with `make` instead, once per fetcher, from other
    /// services of the fetcher being built.
    ///
    /// ```swift
    /// let fetcher = Fetcher.create()
    ///   .addOverride(for: Service.logger, instance: MockLogger())
    ///   .addOverride(for: Service.userRepository) { fetcher in
    ///     InMemoryUserRepository(logger: fetcher.fetch(.logger))
    ///   }
    ///   .done()
    /// ```
    public func addOverride<T>(for service: Service<T>, make: @escaping @Sendable (Fetcher) -> T) -> Builder {
      install(service, UncheckedMake(make))
    }

    /// Adds `install`, run on each fetcher ``done()`` makes.
    func addInstallation(_ install: @escaping (Fetcher) -> Void) -> Builder {
      overrides.append(install)
      return self
    }

    private func install<T>(_ service: Service<T>, _ make: UncheckedMake<T>) -> Builder {
      overrides.append { fetcher in
        fetcher.store.installOverride(fetcher.override(service, with: make.run), for: IdentityKey(service))
      }
      return self
    }

    /// Returns `instance` for `service`.
    public func addOverride<T>(for service: Service<T>, instance: T) -> Builder {
      addOverride(for: service, makeService: { instance })
    }

    /// A new fetcher with the overrides added so far.
    public func done() -> Fetcher {
      let fetcher = Fetcher()
      for install in overrides { install(fetcher) }
      return fetcher
    }
  }
}

extension Fetcher {
  /// The override of `service` that `Builder/addOverride(for:make:)`
  /// installs, or a test's scope (see `TestOverrides`): made once per
  /// fetcher, or per test.
  func override<T>(_ service: Service<T>, with make: @escaping (Fetcher) -> T) -> Override<T> {
    let make = UncheckedMake(make)
    // Unowned: the store holding this override belongs to this fetcher.
    return store.makeOverride(IdentityKey(service), name: service.name, lifetime: .singleton) {
      [unowned self] in make.run(self)
    }
  }
}

/// A user's `makeService` closure, which the seed's API does not mark
/// `@Sendable` (`Service { fetcher in … }` and its override are).
private struct UncheckedMake<T>: @unchecked Sendable {
  // @unchecked: like `Service.makeService`, the closure is immutable and a
  // fetcher runs it at most once, under the engine's exactly-once guarantee.
  let run: (Fetcher) -> T
  init(_ run: @escaping (Fetcher) -> T) { self.run = run }
}
