import ForgeCore

extension Fetcher {
  /// Checks `services` and every service they fetch, without touching this
  /// fetcher's instances, and reports every problem at once.
  ///
  /// ```swift
  /// @Test func servicesAreSound() {
  ///   let report = Fetcher.createDefault().validate(Service.userRepository, Service.logger)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// Each service is made in isolation: what it needs is made anew for the
  /// check and nothing lands in the fetcher. Overrides are used. The report
  /// lists cycles with their path and carries the graph with failing nodes
  /// marked (every service is made once per fetcher, so no lifetime can be
  /// captive).
  ///
  /// A service that fails is made on a thread of its own, which stays
  /// parked afterwards: a failed build cannot be unwound through closures
  /// that cannot throw. Fix what the report says and it costs nothing.
  public func validate<each T>(_ services: repeat Service<each T>) -> ValidationReport {
    var roots: [Validation.Root] = []
    for service in repeat each services {
      roots.append(Validation.Root(name: service.name) { _ = self.fetch(service) })
    }
    return Validation.run(roots, throwing: false)
  }
}
