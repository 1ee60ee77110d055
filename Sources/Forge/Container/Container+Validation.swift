import ForgeCore

extension OverridableContainer {
  /// Checks the dependencies at `keyPaths` and everything they resolve,
  /// without touching the container, and reports every problem at once.
  ///
  /// ```swift
  /// @Test func graphIsSound() {
  ///   let report = AppContainer.shared.validate(\.loginViewModel, \.settingsViewModel)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// Each key path is resolved in isolation: its dependencies are built
  /// anew for the check, and no instance lands in the container's caches
  /// (what the container kept before stays). Overrides in force are used,
  /// so a test can validate the graph it will run with; preview factories
  /// are not. The report lists cycles, type mismatches, `unimplemented`
  /// dependencies, keys shared across arguments, and captive dependencies (a
  /// singleton holding a `.cached` one that `resetCached()` replaces), each
  /// with its chain, and carries the graph with failing nodes marked.
  ///
  /// A key path that fails is resolved on a thread of its own, which stays
  /// parked afterwards: a failed build cannot be unwound through factories
  /// that cannot throw. Fix what the report says and it costs nothing.
  public func validate<each Value>(_ keyPaths: repeat KeyPath<Self, each Value>) -> ValidationReport {
    var roots: [Validation.Root] = []
    for keyPath in repeat each keyPaths {
      roots.append(root(keyPath))
    }
    return Validation.run(roots, throwing: false)
  }

  /// ``validate(_:)``, which also awaits each async dependency among
  /// `keyPaths` (an `AsyncDependency` property, or a `MainActorDependency`,
  /// built on the main actor), so that what its factory resolves across its
  /// awaits is checked too: captive dependencies, what it throws, cycles
  /// across awaits.
  ///
  /// ```swift
  /// @Test func graphIsSound() async {
  ///   let report = await AppContainer.shared.validateAsync(\.loginViewModel, \.database)
  ///   #expect(report.isValid, "\(report)")
  /// }
  /// ```
  ///
  /// While an async dependency is checked, every resolution in the process
  /// takes the locked path. A synchronous failure inside an async factory
  /// (a cycle among the dependencies it resolves, an `unimplemented` one)
  /// is reported with its chain: each key path's check runs on a thread of
  /// its own, which the failure parks, since the half-built dependencies
  /// cannot be unwound through factories that cannot throw (as
  /// ``validate(_:)`` does). Before macOS 15 and iOS 18, which lack task
  /// executors, it stops the program as it would at run time; validate
  /// those dependencies' key paths with ``validate(_:)`` there. A task
  /// the factory starts with `Task {}` runs on the cooperative pool, not on
  /// that thread: such a failure inside it stops the program too.
  public func validateAsync<each Value>(_ keyPaths: repeat KeyPath<Self, each Value>) async -> ValidationReport {
    var roots: [Validation.AsyncRoot] = []
    for keyPath in repeat each keyPaths {
      roots.append(asyncRoot(keyPath))
    }
    return await Validation.runAsync(roots, throwing: false)
  }

  private func asyncRoot<Value>(_ keyPath: KeyPath<Self, Value>) -> Validation.AsyncRoot {
    let root = root(keyPath)
    guard Value.self is any ValidationAwaitable.Type else { return Validation.AsyncRoot(synchronous: root) }
    // As in `root(_:)`: the key path only reads the container.
    nonisolated(unsafe) let keyPath = keyPath
    return Validation.AsyncRoot(name: root.name) {
      try await (self[keyPath: keyPath] as? any ValidationAwaitable)?.awaitForValidation()
    }
  }

  private func root<Value>(_ keyPath: KeyPath<Self, Value>) -> Validation.Root {
    // The container is used from the validation thread: it is Sendable, and
    // the key path only reads it.
    nonisolated(unsafe) let keyPath = keyPath
    let name = "a \(String(describing: Self.self)) key path of type \(TypeName.of(Value.self))"
    return Validation.Root(name: name) {
      _ = self[keyPath: keyPath]
    }
  }
}
