import ForgeCore

extension TestOverrides {
  /// Makes `provider` build with `builder` in `pod` for the test, as
  /// ``SwiftPod/overrideProvider(_:with:scope:)-(Provider<T>,_,_)`` does
  /// for every caller; its instances are cached under `scope` (the
  /// provider's own when nil), for that test only.
  ///
  /// ```swift
  /// @Test(.isolated(pod) {
  ///   $0.overrideProvider(clockProvider, in: pod) { _ in FixedClock() }
  /// })
  /// func expiry() { … }
  /// ```
  public mutating func overrideProvider<T>(
    _ provider: Provider<T>,
    in pod: SwiftPod,
    scope: ProviderScope? = nil,
    with builder: @escaping @Sendable (ProviderResolver) -> T
  ) {
    add(pod.override(provider, with: builder, scope: scope))
  }

  /// Makes the asynchronous `provider` build with `builder` in `pod` for
  /// the test; its instances are cached under `scope` (the provider's own
  /// when nil), for that test only.
  ///
  /// ```swift
  /// @Test(.isolated(pod) {
  ///   $0.overrideProvider(databaseProvider, in: pod) { _ in InMemoryDatabase() }
  /// })
  /// func migration() async { … }
  /// ```
  public mutating func overrideProvider<T>(
    _ provider: AsyncProvider<T>,
    in pod: SwiftPod,
    scope: ProviderScope? = nil,
    with builder: @escaping @Sendable (ProviderResolver) async throws -> T
  ) {
    add(pod.override(provider, with: builder, scope: scope))
  }
}
