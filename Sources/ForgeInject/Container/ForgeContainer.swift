import ForgeCore

/// The ForgeInject container, on the shared Forge engine.
///
/// ```swift
/// let container = ForgeContainer()
/// AppDependencies().registerDependencies(in: container)
/// ForgeContainer.shared = container
/// ```
///
/// Registration order never matters: builders run on first resolution. A
/// singleton is built once however many threads resolve it at the same
/// time; registering and resolving concurrently is safe; a builder may
/// resolve other types; a cycle throws `DependencyCycleError` with the path.
public final class ForgeContainer: ForgeContainerProtocol {
  @usableFromInline let store = SlotStore<ObjectIdentifier>()
  /// The store's fast table cell, kept here so that a hit finds the table
  /// with one load fewer.
  @usableFromInline let fastTable: FastTableCell
  /// How to await each type registered with an `async` builder, in
  /// registration order, for ``validateAsync()``.
  let asyncValidationRoots = LockedValue(AsyncRegistrationRoots())
  /// For each `Optional<W>` whose `W` has an async builder, how to await
  /// `W` (see `resolveAsync()`), on the caller's executor as it does.
  let asyncOptionals = LockedValue<[ObjectIdentifier: AwaitWrapped]>([:])
  /// Awaits the `W` of an `Optional<W>` request.
  typealias AwaitWrapped = nonisolated(nonsending) @Sendable (ForgeContainer) async throws -> Any

  /// This container as the `ForgeContainerProtocol` its builders receive
  /// (see ``bind(_:as:)``). Set once, in `init`, and never again.
  nonisolated(unsafe) private var asProtocol: UnretainedContainer!

  /// Creates an empty container.
  public init() {
    fastTable = store.fastTable
    asProtocol = UnretainedContainer(self)
  }

  @inlinable
  public func register<T>(
    with policy: ForgeRetainPolicy,
    builder: @escaping @Sendable (ForgeContainerProtocol) throws -> T
  ) {
    if registeredForIsolatedTest(with: policy, builder: builder) { return }
    do {
      // Stored as it is: the closure that binds it to this container is
      // made only when something first resolves T.
      try store.register(
        ObjectIdentifier(T.self), name: .type(T.self), lifetime: policy.lifetime, builder: builder, as: T.self
      ) {
        bind($0, as: T.self)
      }
    } catch {
      stopRegistering(T.self, error)
    }
  }

  @inlinable @inline(__always)
  public func resolve<T>() throws -> T {
    // Inlined: the caller's call specialises the engine's common cases for
    // its `T`, and a hit needs no frame of its own.
    // The hit is read here; everything else is one call, so that the hit
    // stays small.
    var known: SlotTableEntry?
    // The key is `T` itself, and every slot of this store under a type's
    // key holds that type (each is made by a resolution of `T` under
    // `ObjectIdentifier(T.self)`): the entry's type needs no comparison,
    // which debug builds still make.
    if let value = store.publishedValue(
      bits: ObjectIdentifier(T.self).identityBits, as: T.self, comparingType: false, known: &known,
      fastTable: fastTable)
    {
      return value
    }
    return try resolveMissed(T.self, known: known)
  }

  /// ``ForgeContainerProtocol/resolve()`` for this container: what a
  /// builder's `try container.resolve()` runs, where `T` is not known.
  /// ``resolve()`` itself is inlined into its callers; inlined into the
  /// protocol's witness, unspecialised, it would cost a builder's
  /// resolution more than this call does. Not for calling directly:
  /// `try container.resolve()` reads the same.
  @_implements(ForgeContainerProtocol,resolve()) @_disfavoredOverload @inline(never)
  public func _resolveThroughProtocol<T>() throws -> T {
    try resolve()
  }

  /// ``resolve()`` past the published read: `known` is the entry the read
  /// found, if any; without one, ``resolveUnknown(_:)``.
  ///
  /// No `T?` here: a builder resolves through `ForgeContainerProtocol`,
  /// where `T` is not known, and an optional of it would look up
  /// `Optional<T>`'s metadata on every resolution.
  @inlinable @inline(never)
  func resolveMissed<T>(_ type: T.Type, known: SlotTableEntry?) throws -> T {
    guard let known else { return try resolveUnknown(T.self) }
    return try resolveRegistered(T.self, known: known)
  }

  /// ``resolveMissed(_:known:)`` for a `T` the published read found no
  /// entry for: the instance published for the main actor
  /// (``publishedMainActorOnly(_:)``), else the registration. Out of line:
  /// a transient's build, which has its entry, never asks.
  @inlinable @inline(never)
  func resolveUnknown<T>(_ type: T.Type) throws -> T {
    if let value = publishedMainActorOnly(T.self) { return value }
    return try resolveRegistered(T.self, known: nil)
  }

  /// The registration's instance of `T`, past the published read, else the
  /// main-actor registration's or the documented error
  /// (``resolveWithoutBuilder(_:after:)``).
  @inlinable @inline(__always)
  func resolveRegistered<T>(_ type: T.Type, known: SlotTableEntry?) throws -> T {
    do {
      return try store.resolveRegisteredMissed(ObjectIdentifier(T.self), as: T.self, known: known) {
        bind($0, as: T.self)
      }
    } catch {
      return try resolveWithoutBuilder(T.self, after: error)
    }
  }

  /// The instance of `T` published for the main actor, when `T` has no
  /// synchronous registration and the caller is on the main actor: a type
  /// registered only with a main-actor builder is then read without first
  /// failing the registration it does not have (a throw and a catch).
  @inlinable @inline(__always)
  func publishedMainActorOnly<T>(_ type: T.Type) -> T? {
    guard store.isSurelyUnregistered(ObjectIdentifier(T.self), thread: ResolutionContext.currentFast) else {
      return nil
    }
    return store.publishedMainActorValue(bits: Self.mainActorKey(T.self).identityBits, as: T.self)
  }

  /// ``resolve()`` past a failure of the synchronous registration: a
  /// main-actor builder's instance, or ``recover(from:resolving:)``.
  /// Specialised for `T` in the caller but not inlined, so that the hit in
  /// ``resolve()`` stays as small as it was.
  @inlinable @inline(never)
  func resolveWithoutBuilder<T>(_ type: T.Type, after error: any Error) throws -> T {
    // The engine's shared error, recognised by its address; else the
    // error's type, compared (a dynamic cast of the error would cost more
    // than the rest of a main-actor hit).
    guard store.isItsNotRegistered(error) || Swift.type(of: error) == NotRegistered.self else {
      return try recover(from: error, resolving: T.self)
    }
    return try resolveMainActorRegistered(T.self, after: NotRegistered())
  }

  /// After a failed resolution of `T`: an unregistered `Optional<W>` is
  /// resolved as `W` (nil when `W` is not registered either); any other
  /// failure is thrown as ForgeInject's documented error.
  @usableFromInline
  func recover<T>(from error: any Error, resolving type: T.Type) throws -> T {
    if error is NotRegistered, let optional = T.self as? any OptionalRequest.Type {
      // The cast cannot fail: `optional` is `T`'s own metatype.
      return try optional.resolveWrapped(in: self) as! T
    }
    throw translated(error, resolving: T.self)
  }

  /// The engine's failure as ForgeInject's documented error, naming `T`,
  /// what it is registered as when that explains the failure, and the
  /// chain of builds that needed it; a builder's own error unchanged.
  func translated<T>(_ error: any Error, resolving type: T.Type) -> any Error {
    let requested = TypeName.of(T.self)
    let context = ResolutionContext.current
    let chain = context.chain
    context.validation?.noteFailure(chain: context.buildingSlots, requested: requested)
    let chainNote = chain.isEmpty ? nil : "chain: \((chain + [requested]).joined(separator: " → "))"
    switch error {
    case is NotRegistered:
      if let async = registeredAsync(T.self, chain: chainNote) { return async }
      // Registered as a type that fits, or that T fits: seed 001's
      // "register a concrete type but resolve as a protocol, or vice versa".
      // Every type fits `Any` and every class `AnyObject`: a registration
      // of those says nothing about T.
      let related = store.registeredTypes().filter {
        TypeRelation.isUsable($0, as: T.self)
          || ($0 != Any.self && $0 != AnyObject.self && TypeRelation.isUsable(T.self, as: $0))
      }
      guard related.isEmpty else {
        let registered = "registered as \(related.map { TypeName.of($0) }.joined(separator: ", "))"
        return ForgeContainerError.typeMismatch(
          ForgeContainerError.subject(requested, details: [registered, chainNote]))
      }
      return ForgeContainerError.missingFactoryMethod(ForgeContainerError.subject(requested, details: [chainNote]))
    case is DependencyTypeMismatchError:
      return ForgeContainerError.typeMismatch(ForgeContainerError.subject(requested, details: [chainNote]))
    default:
      return error
    }
  }

  /// Registers `instance`, built already, for `T`, kept from now on.
  func registerBuilt<T: Sendable>(_ instance: T) {
    if registeredForIsolatedTest(with: .singleton, builder: { _ in instance }) {
      // Kept at once for the test, as it is for the container: the test's
      // `resolveAll(conforming:)` sees it before anything resolves it.
      _ = try? resolve() as T
      return
    }
    do {
      try store.registerBuilt(ObjectIdentifier(T.self), name: .type(T.self), instance: instance)
    } catch {
      stopRegistering(T.self, error)
    }
  }

  /// Registers `instance`, built already, for `T` with the `.weak` policy:
  /// the container holds it until a resolution hands it out, and from then
  /// on only while someone else does. Nothing can build another.
  func registerBuiltWeakly<T: Sendable>(_ instance: T) {
    let pending = LockedValue<T?>(instance)
    register(with: .weak) { _ in
      let handedOut = pending.withValue { pending in
        defer { pending = nil }
        return pending
      }
      guard let handedOut else { throw ForgeContainer.released(T.self) }
      return handedOut
    }
  }

  /// The error for a resolution of `T`, registered `.weak` with a
  /// main-actor builder, after its instance was released.
  static func released<T>(_ type: T.Type) -> ForgeContainerError {
    // The chain ends with T itself, being built.
    let chain = ResolutionContext.current.chain
    let reason = """
      released: it was registered .weak with a main-actor builder, which runs once, at registration; \
      hold the instance while it is needed, or register it with .singleton
      """
    return .missingFactoryMethod(
      ForgeContainerError.subject(
        TypeName.of(T.self),
        details: [reason, chain.count > 1 ? "chain: \(chain.joined(separator: " → "))" : nil]))
  }

  /// What ``validate()`` resolves: each type registered synchronously, in
  /// the order first registered. Made from the store's registrations when
  /// a validation runs, so that a registration spends nothing on it.
  func synchronousValidationRoots() -> [(type: ObjectIdentifier, root: Validation.Root)] {
    store.registeredKeysAndTypes().compactMap { key, type in
      // An async or main-actor registration has a key of its own.
      guard key == ObjectIdentifier(type) else { return nil }
      func root<T>(_ type: T.Type) -> Validation.Root { validationRoot(T.self) }
      return (key, _openExistential(type, do: root))
    }
  }

  /// What validation resolves for `T`, registered synchronously.
  func validationRoot<T>(_ type: T.Type) -> Validation.Root {
    Validation.Root(
      name: TypeName.of(T.self),
      dependency: Validation.Dependency(store: store.identity, key: ObjectIdentifier(T.self))
    ) { [unowned self] in
      _ = try self.resolve() as T
    }
  }

  /// Stops after a registration of `type` failed, which cannot happen: the
  /// key is the type's own identity, so its slot always holds that type.
  @usableFromInline @inline(never)
  func stopRegistering(_ type: Any.Type, _ error: any Error) -> Never {
    fatalError(
      "ForgeInject: \(ForgeDiagnostic.internalError("registering \(TypeName.of(type)) failed: \(error)"))")
  }

  /// The factory that runs a builder registered for `T` with this container.
  @usableFromInline
  func bind<T>(_ builder: Any, as type: T.Type) -> (@Sendable () throws -> T)? {
    guard let builder = builder as? @Sendable (ForgeContainerProtocol) throws -> T else { return nil }
    // Unretained: the store that keeps the factory belongs to this
    // container and is reachable only through it, so the factory runs only
    // inside a call on a live container. A checked `unowned` reference would
    // cost two atomic operations per build, and even an `unowned(unsafe)`
    // one a retain and release. The builder receives the existential made
    // once (`UnretainedContainer`): one made here, per build, would cost a
    // retain, a release and destroying it (about 50 instructions).
    let container = Unmanaged.passUnretained(asProtocol!)
    return { try container._withUnsafeGuaranteedRef { try builder($0.container) } }
  }

  public func resolveWithType<T>(_ type: T.Type) throws -> T {
    try _resolveThroughProtocol()
  }

  public func resolveAll<T>(conforming protocol: T.Type) -> [T] {
    store.storedInstances().compactMap { $0 as? T }
  }

  public func reset(preserving types: [Any.Type]) {
    let preserved = Set(types.map(ObjectIdentifier.init))
    store.clearStoredForKeys(where: { key, _ in !preserved.contains(key) })
  }

  /// The types registered in this container, named in full, in the order
  /// they were first registered.
  ///
  /// Inside a test that isolates the container (ForgeTesting), the types
  /// the test registered and the container did not follow, in the order
  /// the test registered them.
  ///
  /// ```swift
  /// print(container.registeredTypeNames)  // ["App.NetworkServiceProtocol", …]
  /// ```
  public var registeredTypeNames: [String] {
    let names = store.registeredNames()
    let tests = testRegistrations()
    guard !tests.isEmpty else { return names }
    var listed = Set(names)
    return names + tests.compactMap { listed.insert($0.name).inserted ? $0.name : nil }
  }
}

extension ForgeContainer {
  /// Inside a test that isolates this container (ForgeTesting), registers
  /// `builder` for that test only, as its `TestOverrides` would, and says
  /// so; otherwise does nothing and returns false.
  @usableFromInline
  func registeredForIsolatedTest<T>(
    with policy: ForgeRetainPolicy,
    builder: @escaping @Sendable (ForgeContainerProtocol) throws -> T
  ) -> Bool {
    guard store.isIsolatedForCallingTask else { return false }
    store.installOverride(override(T.self, with: policy, builder: builder), for: ObjectIdentifier(T.self))
    return true
  }

  /// Whether anything here builds `T`: a registration of any kind, or one
  /// that a test's scope adds.
  func hasBuilder<T>(for type: T.Type) -> Bool {
    let keys = [ObjectIdentifier(T.self), Self.mainActorKey(T.self), Self.asyncKey(T.self)]
    if keys.contains(where: store.isRegistered) { return true }
    guard let scope = OverrideScope.current else { return false }
    return keys.contains {
      scope.overrideOfTarget(OverrideScope.Target(store: ObjectIdentifier(store), key: $0)) != nil
    }
  }
}

/// A container as the `ForgeContainerProtocol` its builders receive, made
/// once and holding the container without retaining it: a build passes it
/// as it is, where making the existential for each build would retain the
/// container and release it again. The container owns it; nothing else
/// may.
final class UnretainedContainer: @unchecked Sendable {
  // @unchecked: both properties are constants; `object` is read only by
  // `deinit`, and `container` is the container, which is Sendable.
  /// The container, as a builder receives it; holds no reference of its
  /// own (``init(_:)``).
  let container: any ForgeContainerProtocol
  /// The same container, for ``deinit``.
  unowned(unsafe) let object: ForgeContainer

  init(_ container: ForgeContainer) {
    self.container = container
    object = container
    // Made while the container is made, and owned by it: the existential
    // need not keep it alive.
    Unmanaged.passUnretained(container).release()
  }

  deinit {
    // Runs while the container's own deinitialisation destroys its
    // properties: the reference `container` gives back as it is destroyed
    // is taken here first.
    _ = Unmanaged.passUnretained(object).retain()
  }
}

/// An `Optional` request: `let clock: Clock? = try container.resolve()`.
@usableFromInline
protocol OptionalRequest {
  /// `Wrapped` from `container`, or nil when `Wrapped` is not registered.
  static func resolveWrapped(in container: ForgeContainer) throws -> Self
}

extension Optional: OptionalRequest {
  @usableFromInline
  static func resolveWrapped(in container: ForgeContainer) throws -> Self {
    do {
      return .some(try container.resolve() as Wrapped)
    } catch let error as ForgeContainerError
      where error.missingType == TypeName.of(Wrapped.self) && !container.hasBuilder(for: Wrapped.self)
    {
      // `Wrapped` itself is missing; a dependency of it that is missing
      // is a wiring bug, thrown as it is (also one whose name is the same:
      // two `private` types of one name in two files).
      return nil
    }
  }
}
