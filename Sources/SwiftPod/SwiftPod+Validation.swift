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
}
