import ForgeCore

extension SwiftPod {
  /// Checks `providers` and every provider they resolve, without touching
  /// the pod's caches, and reports every problem at once.
  ///
  /// ```swift
  /// @Test func providersAreSound() {
  ///   let report = SwiftPod().validate(signUpFormProvider, dataServiceProvider)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// Each provider is resolved in isolation: what it needs is built anew for
  /// the check and nothing lands in the pod's caches. Overrides in force are
  /// used. The report lists cycles and captive dependencies (a singleton, or
  /// an instance of a custom scope, holding one of a scope that can be
  /// cleared without it), each with its chain, and carries the graph with
  /// failing nodes marked.
  ///
  /// A provider that fails is resolved on a thread of its own, which stays
  /// parked afterwards: a failed build cannot be unwound through builders
  /// that cannot throw. Fix what the report says and it costs nothing.
  public func validate<each T>(_ providers: repeat Provider<each T>) -> ValidationReport {
    var roots: [Validation.Root] = []
    for provider in repeat each providers {
      roots.append(Validation.Root(name: provider.name) { _ = self.resolve(provider) })
    }
    return Validation.run(roots, throwing: false)
  }

  /// Awaits each asynchronous provider of `providers` in isolation, so that
  /// what its builder resolves across its awaits is checked as
  /// ``validate(_:)`` checks a synchronous one (cycles, across awaits too,
  /// captive dependencies, what it throws), and reports every problem at
  /// once.
  ///
  /// ```swift
  /// @Test func asyncProvidersAreSound() async {
  ///   let report = await SwiftPod().validateAsync(databaseProvider)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// While it runs, every resolution in the process takes the locked path.
  /// A synchronous failure inside an async builder (a cycle among the
  /// providers it resolves) is reported with its chain: each provider's
  /// check runs on a thread of its own, which the failure parks, since the
  /// half-built providers cannot be unwound through builders that cannot
  /// throw (as ``validate(_:)`` does). Before macOS 15 and iOS 18, which
  /// lack task executors, it stops the program as it would at run time;
  /// validate those providers with ``validate(_:)`` there. A task the
  /// builder starts with `Task {}` runs on the cooperative pool, not on
  /// that thread: such a failure inside it stops the program too.
  public func validateAsync<each T>(_ providers: repeat AsyncProvider<each T>) async -> ValidationReport {
    var roots: [Validation.AsyncRoot] = []
    for provider in repeat each providers {
      roots.append(Validation.AsyncRoot(name: provider.name) { _ = try await self.resolve(provider) })
    }
    return await Validation.runAsync(roots, throwing: false)
  }

  /// Builds each main-actor provider of `providers` on the main actor, in
  /// isolation, and reports what `validateAsync(_:)` of async providers
  /// reports.
  ///
  /// ```swift
  /// @Test func settingsIsSound() async {
  ///   let report = await SwiftPod().validateAsync(settingsProvider)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  public func validateAsync<each T>(_ providers: repeat MainActorProvider<each T>) async -> ValidationReport {
    var roots: [Validation.AsyncRoot] = []
    for provider in repeat each providers {
      roots.append(
        Validation.AsyncRoot(name: provider.name) { try await self.mainActorHandle(provider).awaitForValidation() })
    }
    return await Validation.runAsync(roots, throwing: false)
  }
}
