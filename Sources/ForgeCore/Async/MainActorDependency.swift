import CForgeAtomics

/// A dependency whose factory runs on the main actor (a view model, a UI
/// service), as a container hands it out: read ``value`` on the main actor
/// synchronously, and from anywhere else with `await` — Swift hops to the
/// main actor for you.
///
/// Reading it synchronously from code that is not on the main actor is a
/// compile error. The factory runs once per kept instance: every read is on
/// the main actor, one at a time.
///
/// ```swift
/// extension AppContainer {
///   var settings: MainActorDependency<SettingsViewModel> {
///     provide(.singleton) { @MainActor in SettingsViewModel(store: self.store) }
///   }
/// }
///
/// @MainActor func showSettings() {
///   let model = AppContainer.shared.settings.value     // on the main actor: synchronous
/// }
/// func prefetch() async {
///   _ = await AppContainer.shared.settings.value.title  // elsewhere: one hop
/// }
/// ```
///
/// A factory that reads its own dependency, directly or through other
/// main-actor dependencies, stops the program with the cycle's path. What
/// the factory resolves is recorded, as an ``AsyncDependency``'s is: an
/// override scope rebuilds the instance for itself only when its overrides
/// reach that (or before any build ended).
public struct MainActorDependency<Value>: Sendable {
  /// What is kept: the instance, and the scopes' instances.
  @usableFromInline let state: MainActorState<Value>
  /// The factory this handle was handed out with, when the kept part keeps
  /// none (Forge's: its factories capture the container, which keeps the
  /// handle).
  @usableFromInline let factory: (@MainActor @Sendable () throws -> Value)?

  /// A handle whose instance `factory` builds on the main actor.
  ///
  /// - Parameters:
  ///   - name: names the dependency in messages and in a cycle's path.
  ///   - identity: the dependency itself, the same for every handle of it.
  ///   - lifetime: how long the container keeps the instance; a weak one is
  ///     kept only while someone else holds it.
  ///   - factory: builds the instance; nil when every handle is handed out
  ///     with one (``supplying(_:)``).
  ///   - stopSite: where a failure of ``value`` (a cycle) stops the
  ///     program, in whose words.
  package init(
    name: String,
    identity: AnyHashable,
    lifetime: Lifetime,
    factory: (@MainActor @Sendable () -> Value)?,
    stopSite: StopSite = .engine
  ) {
    self.init(name: name, identity: identity, lifetime: lifetime, throwingFactory: factory, stopSite: stopSite)
  }

  /// A handle whose instance `factory`, which may throw, builds on the main
  /// actor (ForgeInject's builders throw); read it with
  /// ``resolvedValue()``.
  package init(
    name: String,
    identity: AnyHashable,
    lifetime: Lifetime,
    throwingFactory factory: (@MainActor @Sendable () throws -> Value)?,
    stopSite: StopSite = .engine
  ) {
    // Made by a slot's own build: its builds record in that slot.
    state = MainActorState(
      name: name, identity: identity, holdsWeakly: lifetime == .weak,
      reporting: .forDependencyHandleMadeNow(lifetime: lifetime, identity: identity), stopSite: stopSite,
      factory: factory)
    self.factory = nil
  }

  @usableFromInline
  init(state: MainActorState<Value>, factory: (@MainActor @Sendable () throws -> Value)?) {
    self.state = state
    self.factory = factory
  }

  /// This handle, building with `factory` when it keeps no factory of its
  /// own.
  @inlinable
  package func supplying(_ factory: @escaping @MainActor @Sendable () -> Value) -> MainActorDependency {
    MainActorDependency(state: state, factory: factory)
  }

  /// The instance, built on the main actor the first time it is read (or
  /// every time, for a transient dependency).
  @inlinable @MainActor
  public var value: Value {
    // Inlinable: a hit is a load of the published instance in the caller.
    if Gates.isClearForThisTask, let value = state.published { return value }
    return unpublishedValue()
  }

  /// ``value`` past the hit: in an override scope, weak, or not built yet.
  @usableFromInline @MainActor
  func unpublishedValue() -> Value {
    do {
      return try state.value(supplying: factory)
    } catch {
      // Only a cycle: the factories handed out with ``value`` do not throw.
      state.stopSite.stop(error)
    }
  }

  /// The instance, as ``value`` builds it, with what a throwing factory
  /// threw (nothing is kept then) or the cycle a build would close.
  @inlinable @MainActor
  package func resolvedValue() throws -> Value {
    if Gates.isClearForThisTask, let value = state.published { return value }
    return try state.value(supplying: factory)
  }
}

extension PublishedRead {
  /// A copy of the main-actor handle this read found, handed out with
  /// `factory`, made from the kept handle's state in place. Taking the kept
  /// handle out and then supplying the factory retained and released the
  /// state once more on every hit (Forge's main-actor hit: 309 → 289
  /// instructions); an async handle's copy compiles to one retain either
  /// way. Ends the read.
  ///
  /// ```swift
  /// if let read = store.beginPublishedRead(bits: bits, as: MainActorDependency<SettingsModel>.self, comparingType: true) {
  ///   return read.takeMainActorHandle(supplying: factory)
  /// }
  /// ```
  @inlinable @inline(__always)
  package func takeMainActorHandle<V>(
    supplying factory: @escaping @MainActor @Sendable () -> V
  ) -> MainActorDependency<V> {
    defer { end() }
    return withBorrowed(\MainActorDependency<V>.state) { MainActorDependency(state: $0, factory: factory) }
  }

  /// The instance published by the main-actor handle this read found, read
  /// in place (the handle is not copied out); ends the read. The caller
  /// knows it runs on the main actor.
  ///
  /// ```swift
  /// beginPublishedRead(bits: bits, as: MainActorDependency<V>.self, comparingType: false)?.takeMainActorPublished(V.self)
  /// ```
  @inlinable @inline(__always)
  package func takeMainActorPublished<V>(_ type: V.Type) -> V? {
    defer { end() }
    return withBorrowed(\MainActorDependency<V>.state) { $0.published }
  }
}

extension MainActorDependency: AsyncBuiltHandle {
  package static var instanceType: Any.Type { Value.self }
}

extension MainActorDependency: ValidationAwaitable {
  package func awaitForValidation() async throws {
    try await MainActor.run { _ = try resolvedValue() }
  }
}

extension MainActorDependency: AsyncKeptInstance {
  package var keptForShutdown: (sequence: Int, instance: Any)? { state.keptForShutdown }
  /// A main-actor build runs without a suspension, on the main actor: a
  /// shutdown does not hop there to wait for one (a main thread blocked
  /// on the shutdown would never let it).
  package var hasBuildInProgress: Bool { false }
  package func buildInProgressEnded() async {}
}

/// What a main-actor dependency keeps.
@usableFromInline final class MainActorState<Value>: @unchecked Sendable {
  // @unchecked: `name`, `identity`, `holdsWeakly` and `factory` are
  // immutable (`identity` an AnyHashable of a Sendable key); the mutable
  // state is isolated to the main actor.
  private let factory: (@MainActor @Sendable () throws -> Value)?
  private let name: String
  private let identity: AnyHashable
  private let holdsWeakly: Bool
  /// Where a build records what its factory resolved and tells observers.
  private let reporting: AsyncBuildReporting
  /// Where a failure of ``MainActorDependency/value`` stops the program.
  let stopSite: StopSite
  @MainActor private var kept: Kept?
  /// The kept instance when it is kept for good (not weakly): what a hit
  /// reads, on the main actor, without a call.
  /// Written once, on the main actor, and read only there: by ``value``
  /// (isolated) and by ``SlotStore/publishedMainActorValue(bits:as:)``
  /// after ``MainActorIsolation/isCurrent`` said so, which the compiler
  /// cannot see; hence `nonisolated(unsafe)`.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) private(set) var published: Value?
  /// The kept instance again, when it adopts ``GracefulShutdown``, with
  /// when it was kept: what a container's shutdown reads without the main
  /// actor. Weak when `kept` is.
  private let forShutdown = LockedValue<(sequence: Int, instance: Kept)?>(nil)
  /// Instances built for override scopes, by scope.
  @MainActor private var scoped: [ObjectIdentifier: (scope: WeakScope, kept: Kept)] = [:]

  private enum Kept {
    case strong(Value)
    case weak(WeakObject)

    var value: Value? {
      switch self {
      case .strong(let value): value
      case .weak(let box): box.object.map { $0 as! Value }
      }
    }
  }

  private final class WeakObject {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
  }

  private struct WeakScope {
    weak var scope: OverrideScope?
  }

  init(
    name: String,
    identity: AnyHashable,
    holdsWeakly: Bool,
    reporting: AsyncBuildReporting,
    stopSite: StopSite,
    factory: (@MainActor @Sendable () throws -> Value)?
  ) {
    self.factory = factory
    self.name = name
    self.identity = identity
    self.holdsWeakly = holdsWeakly
    self.reporting = reporting
    self.stopSite = stopSite
  }

  /// The kept instance, or one built with the kept factory or `supplied`;
  /// a factory that throws keeps nothing.
  @usableFromInline @MainActor
  func value(supplying supplied: (@MainActor @Sendable () throws -> Value)?) throws -> Value {
    guard let factory = factory ?? supplied else {
      fatalError("ForgeCore: \(ForgeDiagnostic.internalError("\(name) has no factory to build with"))")
    }
    if Gates.activeOverrideScopes.value != 0, let scope = OverrideScope.current,
      let owner = scope.keeper(ofRecorded: reporting.slot)
    {
      return try scopedValue(for: owner, factory: factory)
    }
    if let value = kept?.value { return value }
    let value = try build(with: factory, forScope: false)
    kept = keep(value)
    if case .strong = kept { published = value }
    if let kept, value is any GracefulShutdown {
      // Kept after everything its factory resolved: it stops before them.
      forShutdown.withValue { $0 = (StoredSequence.next.add(1), kept) }
    }
    return value
  }

  /// The kept instance, if it adopts ``GracefulShutdown``, and when it was
  /// kept.
  var keptForShutdown: (sequence: Int, instance: Any)? {
    forShutdown.withValue { entry in entry.flatMap { entry in entry.instance.value.map { (entry.sequence, $0) } } }
  }

  @MainActor
  private func scopedValue(
    for scope: OverrideScope, factory: @MainActor @Sendable () throws -> Value
  ) throws -> Value {
    let id = ObjectIdentifier(scope)
    if let entry = scoped[id], entry.scope.scope === scope, let value = entry.kept.value { return value }
    let value = try build(with: factory, forScope: true)
    scoped = scoped.filter { $0.value.scope.scope != nil }
    if let kept = keep(value) { scoped[id] = (WeakScope(scope: scope), kept) }
    return value
  }

  @MainActor
  private func keep(_ value: Value) -> Kept? {
    guard holdsWeakly else { return .strong(value) }
    guard type(of: value as Any) is AnyClass else { return nil }
    return .weak(WeakObject(value as AnyObject))
  }

  /// Runs the factory on the main actor's chain of builds; a dependency
  /// already on it closes a cycle, thrown as ``DependencyCycleError``.
  /// For the container's instance, what the factory resolves becomes the
  /// handle slot's recorded dependencies, and the store's observers hear
  /// the build as a resolution of its own. One `forScope` is built in that
  /// scope, and keeps what it resolved for graphs only, while the slot has
  /// nothing recorded (``AnySlot/recordScopeBuild(_:lifetime:)``).
  @MainActor
  private func build(with factory: @MainActor @Sendable () throws -> Value, forScope: Bool) throws -> Value {
    if let start = MainActorBuilds.chain.firstIndex(where: { $0.identity == identity }) {
      throw DependencyCycleError(path: MainActorBuilds.chain[start...].map(\.name) + [name])
    }
    MainActorBuilds.chain.append((identity, name))
    defer { MainActorBuilds.chain.removeLast() }
    if forScope {
      guard reporting.records, let slot = reporting.slot, slot.dependenciesRecorded.value == 0 else {
        return try factory()
      }
      // On this thread's chain, so that what the factory resolves is
      // gathered in the slot's frame.
      let (value, outcome) = try ResolutionContext.current.recording(slot) { try factory() }
      slot.recordScopeBuild(outcome.dependencies, lifetime: reporting.lifetime)
      return value
    }
    // The container's instance: no scope of the caller may serve what the
    // factory reads (a scope's instance is built in that scope).
    guard reporting.records, let slot = reporting.slot else { return try OverrideScope.runOutsideAnyScope(factory) }
    let context = ResolutionContext.current
    let tell = reporting.teller(for: name, chain: context.chain)
    tell(.requested)
    let start = ContinuousClock.now
    // A validation's build belongs to it, in the scope it respects.
    let validation = context.validation
    // On this thread's chain, like a synchronous build: what the factory
    // resolves is recorded in the slot's frame.
    let value: Value
    let outcome: ResolutionContext.Outcome
    do {
      (value, outcome) = try context.recording(slot) {
        try validation == nil ? OverrideScope.runOutsideAnyScope(factory) : factory()
      }
    } catch {
      tell(.ended(since: start, failure: error))
      throw error
    }
    slot.recordDependencies(outcome.dependencies, lifetime: reporting.lifetime)
    validation?.noteBuild(slot, lifetime: reporting.lifetime, dependencies: outcome.dependencies)
    tell(.ended(since: start, failure: nil))
    return value
  }
}

/// Where the main actor runs.
@usableFromInline package enum MainActorIsolation {
  /// Whether the caller runs on the main actor (in a main-actor task, or in
  /// code the main actor's executor runs): where a synchronous resolution
  /// may build a main-actor dependency in place. Not the same as being on
  /// the main thread: a test runner may run the main actor elsewhere.
  @usableFromInline package static var isCurrent: Bool {
    forge_is_on_main_actor() != 0
  }

  /// Runs `body` on `argument`, isolated to the main actor, in the
  /// synchronous caller, which ``isCurrent`` said runs on the main actor:
  /// what `MainActor.assumeIsolated` does after checking again. `body`
  /// takes what it needs as `argument`, so that it captures nothing: a
  /// closure that captures nothing is not allocated, escaping or not, and
  /// an escaping one needs no check that it did not escape.
  ///
  /// ```swift
  /// guard MainActorIsolation.isCurrent else { throw OffMainActor() }
  /// return try MainActorIsolation.runChecked(handle) { try $0.resolvedValue() }
  /// ```
  @inlinable
  package static func runChecked<Argument, T>(
    _ argument: Argument,
    _ body: @escaping @MainActor (Argument) throws -> T
  ) throws -> T {
    typealias Unisolated = (Argument) throws -> T
    return try unsafeBitCast(body, to: Unisolated.self)(argument)
  }
}

/// The main-actor dependencies being built, outermost first.
@MainActor enum MainActorBuilds {
  static var chain: [(identity: AnyHashable, name: String)] = []
}

extension SlotStore {
  /// The instance published by the main-actor handle kept for `bits`, read
  /// in place, without copying the handle out (its fields would be retained
  /// and released), when the caller runs on the main actor
  /// (``MainActorIsolation/isCurrent``): for a synchronous caller that is
  /// not isolated to it in the type system. Nil when the lock-free read
  /// does not apply (no such handle in the table, an override may apply, a
  /// build in progress on this thread records what it resolves), nothing is
  /// published, or the caller is elsewhere; the caller then resolves the
  /// handle. The main actor is asked only once the table has the handle, so
  /// a key without one costs no check.
  ///
  /// `bits` are a key under which only `MainActorDependency<V>` handles
  /// live (ForgeInject's main-actor key of `V`): the read does not compare
  /// the slot's type (``typedEntry(bits:as:comparingType:in:section:)``).
  ///
  /// ```swift
  /// if let value = store.publishedMainActorValue(bits: key.identityBits, as: SettingsModel.self) { return value }
  /// ```
  @inlinable @inline(__always)
  package func publishedMainActorValue<V>(bits: SlotKeyBits?, as type: V.Type) -> V? {
    guard let read = beginPublishedRead(bits: bits, as: MainActorDependency<V>.self, comparingType: false) else {
      return nil
    }
    guard MainActorIsolation.isCurrent else {
      read.end()
      return nil
    }
    return read.takeMainActorPublished(V.self)
  }
}

extension SlotStore where Key == IdentityKey {
  /// ``SlotStore/publishedMainActorValue(bits:as:)`` for a caller isolated
  /// to the main actor, which need not ask where it runs, reading the
  /// object whose serial is `serial` and whose life is `life` (a SwiftPod
  /// provider, a DependencyFetcher service) through its cached slot.
  ///
  /// ```swift
  /// if let value = store.publishedMainActorObjectValueOnMainActor(
  ///   serial: provider.keySerial, life: provider.keyLife, as: Router.self)
  /// { return value }
  /// ```
  @inlinable @inline(__always) @MainActor
  package func publishedMainActorObjectValueOnMainActor<V>(serial: UInt, life: KeyLife, as type: V.Type) -> V? {
    beginPublishedObjectRead(serial: serial, life: life, as: MainActorDependency<V>.self)?
      .takeMainActorPublished(V.self)
  }

  /// The handle of the main-actor dependency that `object` (a SwiftPod
  /// provider, a DependencyFetcher service) stands for, kept with
  /// `lifetime`; `factory` builds its instance on the main actor.
  package func mainActorHandle<T>(
    for object: some KeyObject,
    name: String,
    lifetime: Lifetime,
    stopSite: StopSite,
    factory: @escaping @MainActor @Sendable () -> T
  ) throws -> MainActorDependency<T> {
    let key = IdentityKey(object)
    return try resolveObject(serial: object.keySerial, key: key, lifetime: lifetime.ofAsyncHandle, name: name) {
      MainActorDependency(
        name: name, identity: AsyncDependencyIdentity(store: self, key: key), lifetime: lifetime, factory: factory,
        stopSite: stopSite)
    }
  }
}
