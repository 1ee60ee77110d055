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

  /// Awaits each asynchronous service of `services` in isolation, so that
  /// what its closure fetches across its awaits is checked as
  /// ``validate(_:)`` checks a synchronous one (cycles, across awaits too,
  /// what it throws), and reports every problem at once.
  ///
  /// ```swift
  /// @Test func asyncServicesAreSound() async {
  ///   let report = await Fetcher.createDefault().validateAsync(AsyncService.database)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// While it runs, every fetch in the process takes the locked path. A
  /// synchronous failure inside an async closure (a cycle among the
  /// services it fetches) is reported with its chain: each service's check
  /// runs on a thread of its own, which the failure parks, since the
  /// half-made services cannot be unwound through closures that cannot
  /// throw (as ``validate(_:)`` does). Before macOS 15 and iOS 18, which
  /// lack task executors, it stops the program as it would at run time;
  /// validate those services with ``validate(_:)`` there. A task the
  /// closure starts with `Task {}` runs on the cooperative pool, not on
  /// that thread: such a failure inside it stops the program too.
  public func validateAsync<each T>(_ services: repeat AsyncService<each T>) async -> ValidationReport {
    var roots: [Validation.AsyncRoot] = []
    for service in repeat each services {
      roots.append(Validation.AsyncRoot(name: service.name) { _ = try await self.fetch(service) })
    }
    return await Validation.runAsync(roots, throwing: false)
  }

  /// Makes each main-actor service of `services` on the main actor, in
  /// isolation, and reports what `validateAsync(_:)` of async services
  /// reports.
  ///
  /// ```swift
  /// @Test func settingsIsSound() async {
  ///   let report = await Fetcher.createDefault().validateAsync(MainActorService.settings)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  public func validateAsync<each T>(_ services: repeat MainActorService<each T>) async -> ValidationReport {
    var roots: [Validation.AsyncRoot] = []
    for service in repeat each services {
      roots.append(
        Validation.AsyncRoot(name: service.name) { try await self.mainActorHandle(service).awaitForValidation() })
    }
    return await Validation.runAsync(roots, throwing: false)
  }
}
