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
  /// container's singletons (what it kept before stays). A registration
  /// that the check of one registered before it already built, to the end,
  /// is not resolved again: that check covered it and all it needs. The
  /// report lists missing registrations and type mismatches with the chain
  /// that needed them, cycles with their path, builders that threw with the
  /// error, and captive dependencies (a singleton holding a `.weak` one),
  /// and carries the graph with failing nodes marked.
  ///
  /// Inside a test that isolates the container (ForgeTesting), the test's
  /// own registrations are checked too, with its overrides in force.
  public func validate() -> ValidationReport {
    let roots = synchronousValidationRoots()
    let testRoots = testRegistrationRoots(besides: Set(roots.map(\.type))).compactMap(\.root)
    return Validation.run(roots.map(\.root) + testRoots, throwing: true) { error in
      self.validationDiagnostic(for: error)
    }
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
  /// resolution in the process takes the locked path. Inside a test that
  /// isolates the container, the test's own registrations are checked too.
  public func validateAsync() async -> ValidationReport {
    let synchronous = synchronousValidationRoots()
    let asynchronous = asyncValidationRoots.withValue { $0 }
    // A test's registrations: synchronous ones beside the container's, the
    // others after them, each unless the container registers its type so.
    let testRoots = testRegistrationRoots(besides: [])
    let testSynchronous = testRoots.filter { root in
      root.root != nil && !synchronous.contains { $0.type == root.type }
    }
    let testAsynchronous = testRoots.filter { root in
      root.root == nil && !asynchronous.types.contains(root.type)
    }
    let roots =
      (synchronous.map { Validation.AsyncRoot(synchronous: $0.root) } + testSynchronous.map(\.asyncRoot))
      + (asynchronous.entries.map { $0.maker.root(in: self) } + testAsynchronous.map(\.asyncRoot))
    return await Validation.runAsync(roots, throwing: true) { error in
      self.validationDiagnostic(for: error)
    }
  }

  /// The registrations that the test isolating this container for the
  /// calling task made (declared in its trait or made in its body), in the
  /// order it made them; none outside such a test.
  func testRegistrations() -> [TestValidationRoot] {
    store.isolatedOverridesOfCallingTask().compactMap { $0.attachment as? TestValidationRoot }
      .sorted { $0.sequence < $1.sequence }
  }

  /// The roots of the registrations that the test isolating this container
  /// for the calling task made, except those of `types`; none outside such
  /// a test.
  private func testRegistrationRoots(besides types: Set<ObjectIdentifier>) -> [TestValidationRoot] {
    testRegistrations().filter { !types.contains($0.type) }
  }
}

/// What validation resolves for a test's registration: kept with the
/// override that registers it (``ForgeCore/AnyOverride/attachment``), so
/// that it lives as long as the test's registration does.
struct TestValidationRoot: Sendable {
  let type: ObjectIdentifier
  /// The type's name, for ``ForgeContainer/registeredTypeNames``.
  let name: String
  /// When the test registered it, in the process's order of registrations
  /// and kept instances.
  let sequence = StoredSequence.next.add(1)
  /// Resolves it synchronously; nil for an async or main-actor one.
  let root: Validation.Root?
  /// Awaits it.
  let asyncRoot: Validation.AsyncRoot

  /// The roots of `T`, registered synchronously in `container`.
  init<T>(synchronous type: T.Type, in container: ForgeContainer) {
    self.type = ObjectIdentifier(T.self)
    self.name = TypeName.of(T.self)
    let root = container.validationRoot(T.self)
    self.root = root
    self.asyncRoot = Validation.AsyncRoot(synchronous: root)
  }

  /// The root of `T`, registered with an `async` or main-actor builder in
  /// `container`.
  init<T: Sendable>(awaiting type: T.Type, in container: ForgeContainer) {
    self.type = ObjectIdentifier(T.self)
    self.name = TypeName.of(T.self)
    self.root = nil
    self.asyncRoot = container.asyncValidationRoot(T.self)
  }
}

extension ForgeContainer {
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

/// Each type registered in a container with an `async` or main-actor
/// builder, once, in the order first registered, with what makes its
/// validation root (a metatype: noting a registration allocates nothing
/// for it and does not spell the type's name). Synchronous registrations
/// need no such list: the store records them in order, and a type opens to
/// its root unconstrained (``ForgeContainer/synchronousValidationRoots()``);
/// an async root needs `T: Sendable`, which the store's `Any.Type` cannot
/// give.
struct AsyncRegistrationRoots: Sendable {
  /// The types, first registration first.
  private(set) var entries: [(type: ObjectIdentifier, maker: any AsyncRootMaking.Type)] = []
  /// The same types, to tell a registration again at once.
  private(set) var types: Set<ObjectIdentifier> = []

  /// Notes `type`, unless it is noted already.
  mutating func note(_ type: ObjectIdentifier, _ maker: any AsyncRootMaking.Type) {
    if types.insert(type).inserted { entries.append((type, maker)) }
  }
}

/// Makes the root that awaits a type registered with an `async` or
/// main-actor builder.
protocol AsyncRootMaking: SendableMetatype {
  static func root(in container: ForgeContainer) -> Validation.AsyncRoot
}

/// The root of `T`, registered with an `async` or main-actor builder.
enum AsyncRoot<T: Sendable>: AsyncRootMaking {
  static func root(in container: ForgeContainer) -> Validation.AsyncRoot {
    Validation.AsyncRoot(name: TypeName.of(T.self)) { [unowned container] in
      _ = try await container.resolveAsync() as T
    }
  }
}
