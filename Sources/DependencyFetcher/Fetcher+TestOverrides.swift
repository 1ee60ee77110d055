import ForgeCore

extension TestOverrides {
  /// Makes `service` with `makeService` in `fetcher` for the test, once
  /// per test, as `Fetcher.Builder/addOverride(for:makeService:)` does
  /// once per fetcher.
  ///
  /// ```swift
  /// @Test(.isolated(fetcher) {
  ///   $0.addOverride(for: .clock, in: fetcher) { FixedClock() }
  /// })
  /// func expiry() { … }
  /// ```
  public mutating func addOverride<T>(
    for service: Service<T>,
    in fetcher: Fetcher,
    makeService: @escaping @Sendable () -> T
  ) {
    add(fetcher.override(service) { _ in makeService() })
  }

  /// Makes `service` with `make` in `fetcher` for the test, once per test,
  /// from other services of `fetcher`.
  ///
  /// ```swift
  /// @Test(.isolated(fetcher) {
  ///   $0.addOverride(for: .userRepository, in: fetcher) { fetcher in
  ///     InMemoryUserRepository(logger: fetcher.fetch(.logger))
  ///   }
  /// })
  /// func signUp() { … }
  /// ```
  public mutating func addOverride<T>(
    for service: Service<T>,
    in fetcher: Fetcher,
    make: @escaping @Sendable (Fetcher) -> T
  ) {
    add(fetcher.override(service, with: make))
  }

  /// Returns `instance` for `service` in `fetcher` during the test.
  ///
  /// ```swift
  /// @Test(.isolated(fetcher) { $0.addOverride(for: .logger, in: fetcher, instance: MockLogger()) })
  /// func logs() { … }
  /// ```
  public mutating func addOverride<T: Sendable>(for service: Service<T>, in fetcher: Fetcher, instance: T) {
    addOverride(for: service, in: fetcher, makeService: { instance })
  }

  /// Makes the asynchronous `service` with `make` in `fetcher` for the
  /// test, once per test.
  ///
  /// ```swift
  /// @Test(.isolated(fetcher) {
  ///   $0.addOverride(for: .database, in: fetcher) { _ in InMemoryDatabase() }
  /// })
  /// func migration() async throws { … }
  /// ```
  public mutating func addOverride<T>(
    for service: AsyncService<T>,
    in fetcher: Fetcher,
    make: @escaping @Sendable (Fetcher) async throws -> T
  ) {
    add(fetcher.override(service, with: make))
  }
}
