import ForgeCore

extension ForgeContainer {
  /// Resolves every registered type in isolation and reports every problem
  /// at once, instead of stopping at the first.
  ///
  /// ```swift
  /// @Test func registrationsAreComplete() {
  ///   let container = ForgeContainer()
  ///   AppModule.register(in: container)
  ///   let report = container.validate()
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// Each registration is resolved as it would be at run time, but its
  /// dependencies are built anew for the check and nothing lands in the
  /// container's singletons (what it kept before stays). The report lists
  /// missing registrations and type mismatches with the chain that needed
  /// them, cycles with their path, builders that threw with the error, and
  /// captive dependencies (a singleton holding a `.weak` one), and carries
  /// the graph with failing nodes marked.
  public func validate() -> ValidationReport {
    let roots = validationRoots.withValue { $0.map(\.root) }
    return Validation.run(roots, throwing: true) { error in self.validationDiagnostic(for: error) }
  }

  /// ``validate()``, which also awaits every type registered with an
  /// `async` or main-actor builder, in the order registered after the
  /// synchronous ones:
  /// what an async builder resolves, across its awaits, is checked as a
  /// synchronous builder's is (missing registrations with their chain,
  /// captive dependencies, what it throws, cycles across awaits).
  ///
  /// ```swift
  /// @Test func registrationsAreComplete() async {
  ///   let container = ForgeContainer()
  ///   AppModule.register(in: container)
  ///   let report = await container.validateAsync()
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// Types registered with `register(with:onMainActor:)` are built on the
  /// main actor, as `resolveAsync()` builds them. While it runs, every
  /// resolution in the process takes the locked path.
  public func validateAsync() async -> ValidationReport {
    let synchronous = validationRoots.withValue { $0.map { Validation.AsyncRoot(synchronous: $0.root) } }
    let asynchronous = asyncValidationRoots.withValue { $0.map(\.root) }
    return await Validation.runAsync(synchronous + asynchronous, throwing: true) { error in
      self.validationDiagnostic(for: error)
    }
  }

  /// The diagnostic of a registration's failure, in the engine's words.
  private func validationDiagnostic(for error: any Error) -> ForgeDiagnostic? {
    let registeredNote = ForgeContainerError.registeredNote(in: self)
    switch error {
    case let error as ForgeContainerError:
      let failed = error.failedType
      switch error {
      case .missingFactoryMethod:
        return ForgeDiagnostic(
          .missing, "Nothing is registered for \(failed)", reason: registeredNote, fix: "\(error.fix).")
      case .typeMismatch(let text):
        let registeredAs = text.firstRange(of: "registered as ").map { start in
          String(text[start.upperBound...].prefix { $0 != ";" && $0 != ")" })
        }
        return ForgeDiagnostic(
          .typeMismatch,
          registeredAs.map { "\(failed) is resolved, but it is registered as \($0)" }
            ?? "\(failed) is resolved as another type than it is registered as",
          reason: registeredNote,
          fix: "\(error.fix)."
        )
      }
    default:
      // The engine's (a cycle), or a builder's own: the report words them.
      return nil
    }
  }
}
