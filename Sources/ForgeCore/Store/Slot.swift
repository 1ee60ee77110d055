import CForgeAtomics

/// One dependency's place in a store: its name, its value type and, for
/// stored lifetimes, the instance.
///
/// A slot is created the first time its key is seen and lives as long as its
/// store, or, for an object key (a provider, a service), until the store
/// drops it once the object is gone (see ``SlotKey/isGone``), or, for a
/// transient whose key is made up at run time (Forge's
/// `provide(.transient, key: "item-\(id)")`), until the store drops it
/// while it sits idle, before its key is asked for a second time, or at
/// any time when its declaration makes keys per argument (see
/// ``AnySlot/awaitsTable``). All mutable state is guarded by the owning
/// ``SlotStore``'s lock.
@usableFromInline package class AnySlot: @unchecked Sendable {
  // @unchecked: every `var` below is read and written only while the owning
  // SlotStore holds its lock; `nameSource` and `valueType` never change, and
  // `name` publishes its one rendering through an atomic word.

  /// The dependency as the user spelled it, for messages, graphs and
  /// traces; rendered only when asked for. A member's name (Forge's
  /// `Container.property`) is rendered once and kept: rendering prints the
  /// owner's type, thousands of instructions, and a trace asks on every
  /// event.
  package var name: String {
    guard case .member = nameSource else { return nameSource.rendered }
    let published = forge_counter_load(renderedNameWord)
    if published != 0 {
      return Unmanaged<RenderedName>.fromOpaque(UnsafeRawPointer(bitPattern: published).unsafelyUnwrapped)
        .takeUnretainedValue().text
    }
    let made = Unmanaged.passRetained(RenderedName(nameSource.rendered))
    if forge_word_compare_exchange(renderedNameWord, 0, Int(bitPattern: made.toOpaque())) {
      return made.takeUnretainedValue().text
    }
    made.release()  // another thread kept its rendering first
    return self.name
  }
  package let nameSource: SlotName
  /// The type the slot's instances have; a request for another type is a mismatch.
  @usableFromInline package let valueType: ObjectIdentifier
  private let valueMetatype: Any.Type
  package var valueTypeName: String { TypeName.of(valueMetatype) }
  /// The type of the instances the dependency hands out, as graphs show it:
  /// an async or main-actor dependency's instance type, not its handle's.
  package var instanceTypeName: String {
    guard let handle = valueMetatype as? any AsyncBuiltHandle.Type else { return valueTypeName }
    return TypeName.of(handle.instanceType)
  }

  /// How a closure-scoped override would name this slot.
  package let target: OverrideScope.Target
  /// The lock of the store that owns the slot, which guards its state.
  /// Strong: an override scope that kept an instance here may outlive the
  /// store, and takes this lock to drop it.
  package let storeLock: ConditionLock
  /// What the slot's last recorded build resolved directly: the edges of the
  /// dependency graph.
  @exclusivity(unchecked) package var dependencies: [AnySlot] = []
  /// When the container's instance was kept, in the process-wide order of
  /// kept instances: shutdown stops the latest first. Guarded by the lock.
  @exclusivity(unchecked) package var storedSequence = 0
  /// Whether its preview factory has served it, for graphs.
  @exclusivity(unchecked) package var servedByPreview = false
  /// The lifetime of the build that recorded `dependencies`, for graphs.
  @exclusivity(unchecked) package var recordedLifetime: Lifetime?
  /// What an override scope's async or main-actor build resolved, with its
  /// lifetime, while nothing is recorded in `dependencies`: edges for
  /// graphs only (a test that built the dependency first shows them),
  /// which no scope's decision reads. Guarded by the lock.
  @exclusivity(unchecked) var scopeBuildEdges: (dependencies: [AnySlot], lifetime: Lifetime)?
  /// The slot's place in its store's creation order, for graphs that list
  /// slots the same way every time.
  @exclusivity(unchecked) package var serial = 0
  /// Whether the slot is kept out of its store's lock-free table until its
  /// key is asked for again (a transient of a store whose keys are made
  /// up: ``SlotKey/keysAreMadeUp``), or for good when its declaration
  /// makes keys per argument (``SlotKey/declarationSite``); guarded by
  /// the lock. No lock-free path can reach such a slot, so the store may
  /// drop it while it is idle.
  @exclusivity(unchecked) var awaitsTable = false
  /// Whether the slot's key is one of several its declaration made (a key
  /// per argument, see ``SlotStore/noteSiteLocked(of:slot:)``): a
  /// transient's slot then stays out of the table for good; a kept one's
  /// table entry is marked (``SlotTableMatch/slotMayGo``), so that the
  /// store may drop the slot once a reset has emptied it. Guarded by the
  /// lock.
  @exclusivity(unchecked) var keyPerArgument = false
  /// Whether a slot kept out of the table for good (a key per argument)
  /// was asked for since its store last looked for idle slots: it then
  /// stays for one more look. Guarded by the lock.
  @exclusivity(unchecked) var askedSinceLook = false
  /// Nonzero once a build has recorded `dependencies`; read without the
  /// lock. Its word is the first of the second line of ``cell``'s span,
  /// which no hit reads.
  @usableFromInline let dependenciesRecorded: AtomicCounter
  /// A retained ``RenderedName`` once ``name`` rendered a member's name,
  /// 0 before: the word after ``dependenciesRecorded``'s, in ``cell``'s span.
  private var renderedNameWord: UnsafeMutablePointer<Int> {
    UnsafeMutableRawPointer(cell + AnySlot.lineWords + 1).assumingMemoryBound(to: Int.self)
  }
  /// Whether the slot holds async handles (``AsyncDependency``): making a
  /// handle resolves nothing, so its dependencies are what the handle's
  /// build resolves, recorded when that build ends, not when the handle is
  /// made.
  package let buildsAsynchronously: Bool

  /// Who builds the container's instance and in which generation: resets,
  /// clears and re-registrations invalidate it, so a build of the old state
  /// that finishes afterwards is not kept.
  @exclusivity(unchecked) package var state = BuildState()
  /// The lifetime the stored instance was built with; nil when nothing is stored.
  @exclusivity(unchecked) package var storedLifetime: Lifetime?

  init(name: SlotName, target: OverrideScope.Target, storeLock: ConditionLock, valueType: Any.Type) {
    self.nameSource = name
    self.target = target
    self.storeLock = storeLock
    self.valueType = ObjectIdentifier(valueType)
    self.valueMetatype = valueType
    self.buildsAsynchronously = valueType is any AsyncBuiltHandle.Type
    // Read on every resolution of the slot, written rarely: one cache line
    // for the three cells, a flag, and room for a small instance's box, so
    // that a hit reads one line of the slot's, not two. The span's second
    // line holds `dependenciesRecorded`: in a span of its own it cost a
    // slot 128 bytes more.
    // The word after it holds the rendered name, once something asked.
    let span = CacheLines.allocate(UnsafeMutableRawPointer?.self, count: AnySlot.lineWords + 2)
    span.initialize(repeating: nil, count: AnySlot.lineWords)
    let recorded = UnsafeMutableRawPointer(span + AnySlot.lineWords).bindMemory(to: Int.self, capacity: 2)
    recorded.initialize(repeating: 0, count: 2)
    cell = span
    overrideCell = span + 1
    registrationCell = AnySlot.registrationCell(after: span)
    dependenciesRecorded = AtomicCounter(word: recorded)
  }

  /// What a slot publishes for lock-free readers, each in a cell of its own
  /// that `beginRead(_:)` on the thread's state reads inside a read.
  /// Cells are written only under the store's lock; a replaced box is
  /// retired until no reader holds it.
  package enum BoxKind: Sendable {
    /// The stored instance, in ``cell``.
    case instance
    /// The container-wide override, in ``overrideCell``.
    case override
    /// The registered factory and lifetime, in ``registrationCell``.
    case registration
  }

  /// The published instance. A box is an allocation holding one instance of
  /// the slot's type, so reading it needs no generic class metadata.
  @usableFromInline let cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  /// The container-wide override of the slot's key, if one is installed: a
  /// box holding an ``AnyOverride``, so that a reader needs neither the lock
  /// nor a hash of the key to learn of it.
  @usableFromInline let overrideCell: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  /// The registered factory, for dialects that register (see
  /// ``Slot/Registered``).
  @usableFromInline let registrationCell: UnsafeMutablePointer<UnsafeMutableRawPointer?>

  /// Words in the slot's line: the three cells, the inline box's flag, and
  /// the inline box (``inlineBox``).
  static let lineWords = 8

  /// Nonzero while the inline box holds an instance; written with the
  /// store's lock held when an instance moves in, and when a retired inline
  /// box is destroyed (without it), so through atomics.
  var inlineBoxInUse: UnsafeMutablePointer<Int> {
    UnsafeMutableRawPointer(cell + 3).assumingMemoryBound(to: Int.self)
  }

  /// Room for the box of an instance of up to four words, in the line of
  /// the slot's cells: the first instance the slot keeps goes there, and
  /// any other while it is free.
  var inlineBox: UnsafeMutableRawPointer { UnsafeMutableRawPointer(cell + 4) }
  static let inlineBoxBytes = 4 * MemoryLayout<UInt>.size

  /// The registration cell of the slot whose instance cell is `cell`: the
  /// three cells are consecutive, so a reader that holds a thread cache
  /// entry needs no access to the slot object to find it.
  @inlinable
  static func registrationCell(
    after cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    cell + 2
  }

  deinit {
    // The store is gone, so no reader can hold a box any more.
    if let box = cell.pointee { destroy(box, kind: .instance) }
    if let box = overrideCell.pointee { destroy(box, kind: .override) }
    if let box = registrationCell.pointee { destroy(box, kind: .registration) }
    if let rendered = UnsafeRawPointer(bitPattern: renderedNameWord.pointee) {
      Unmanaged<RenderedName>.fromOpaque(rendered).release()
    }
    CacheLines.deallocate(cell)  // and the rest of the span, `dependenciesRecorded` with it
  }

  /// Whether the slot keeps an instance for some override scope.
  var keepsScopeInstancesLocked: Bool { false }

  /// Whether the slot keeps nothing and builds nothing: no instance
  /// published or stored, no build in progress and no container-wide
  /// override (an instance kept for a scope is not asked: the scope holds
  /// the slot). Call with the store's lock held.
  var keepsNothingLocked: Bool {
    cell.pointee == nil && storedLifetime == nil && state.building == nil && overrideCell.pointee == nil
  }

  /// Destroys a box this slot published, once no reader can hold it.
  package func destroy(_ box: UnsafeMutableRawPointer, kind: BoxKind) {
    guard kind == .override else { return destroyTyped(box, kind: kind) }
    let typed = box.assumingMemoryBound(to: AnyOverride.self)
    typed.deinitialize(count: 1)
    typed.deallocate()
  }

  /// Destroys a box holding a value of the slot's type, or its registration.
  func destroyTyped(_ box: UnsafeMutableRawPointer, kind: BoxKind) {}

  /// Publishes `override` (nil to remove it) and hands back the replaced
  /// box, to retire. Call with the store's lock held.
  func publishOverride(_ override: AnyOverride?) -> UnsafeMutableRawPointer? {
    var box: UnsafeMutableRawPointer?
    if let override {
      let typed = UnsafeMutablePointer<AnyOverride>.allocate(capacity: 1)
      typed.initialize(to: override)
      box = UnsafeMutableRawPointer(typed)
    }
    return forge_exchange_seq_cst(overrideCell, box)
  }

  /// Removes the stored instance and hands it back, so the caller can release
  /// it after unlocking (a deinit may resolve again), with the published box,
  /// which the store releases once no reader holds it.
  package func takeStored() -> (instance: Any?, box: UnsafeMutableRawPointer?) { (nil, nil) }

  /// The stored instance, if any, as `Any`.
  package var storedInstance: Any? { nil }

  /// Drops what the slot keeps for the override scope `scope`, which is
  /// ending, and hands it back to release after unlocking. Call with the
  /// store's lock held.
  package func dropScopeKept(of scope: ObjectIdentifier) -> [Any] { [] }

  /// The instance the slot keeps for the override scope `scope`, if any.
  /// Call with the store's lock held.
  package func scopeKeptInstance(of scope: ObjectIdentifier) -> Any? { nil }

  /// Takes out what the slot keeps for the override scope `scope`, with
  /// when each was kept, for the scope's shutdown. Call with the store's
  /// lock held.
  package func takeScopeKept(of scope: ObjectIdentifier) -> [(sequence: Int, instance: Any)] { [] }

  /// Drops what the slot keeps for any override scope (or for those of
  /// `scopes`, when given) with a lifetime that `matches`, and starts a new
  /// generation for builds of such a lifetime in progress. Call with the
  /// store's lock held.
  package func clearScopeKept(in scopes: Set<ObjectIdentifier>? = nil, where matches: (Lifetime) -> Bool) -> [Any] {
    []
  }

  /// The slot's lifetime as far as a clear is concerned: what the kept
  /// instance was built with, or what the build in progress builds.
  package var clearableLifetime: Lifetime? { storedLifetime ?? state.buildingLifetime }

  /// Whether a factory was registered for the slot; read it with the
  /// store's lock held.
  package var hasRegisteredFactory: Bool { registrationCell.pointee != nil }

  /// Keeps `dependencies` as what the slot's own factory resolved, built
  /// with `lifetime` (with `unlessRecorded`, only when nothing is recorded
  /// yet); a change starts a new edge epoch, so memos of the graph's shape
  /// are redone.
  func recordDependencies(_ dependencies: [AnySlot], lifetime: Lifetime, unlessRecorded: Bool = false) {
    let changed = storeLock.withLock {
      if unlessRecorded, dependenciesRecorded.value != 0 { return false }
      let changed = dependenciesRecorded.value == 0 || !self.dependencies.elementsEqual(dependencies, by: ===)
      self.dependencies = dependencies
      recordedLifetime = lifetime
      // Under the lock, so that `unlessRecorded` sees every record made.
      if dependenciesRecorded.value == 0 { dependenciesRecorded.add(1) }
      return changed
    }
    // After the edges: a memo made meanwhile, under the epoch before, is
    // redone.
    if changed { Gates.edgeEpoch.add(1) }
  }

  /// Keeps what an override scope's async or main-actor build resolved as
  /// ``scopeBuildEdges``, when nothing is recorded yet: unlike
  /// ``recordDependencies(_:lifetime:unlessRecorded:)`` it leaves the slot
  /// unrecorded, since its record decides which handle a scope reads.
  func recordScopeBuild(_ dependencies: [AnySlot], lifetime: Lifetime) {
    storeLock.withLock {
      if dependenciesRecorded.value == 0, scopeBuildEdges == nil { scopeBuildEdges = (dependencies, lifetime) }
    }
  }

  /// The edges and lifetime a graph shows: the recorded ones, or else a
  /// scope build's. Call with the store's lock held.
  var graphEdges: (dependencies: [AnySlot], lifetime: Lifetime?) {
    guard dependenciesRecorded.value == 0, let scopeBuildEdges else { return (dependencies, recordedLifetime) }
    return (scopeBuildEdges.dependencies, scopeBuildEdges.lifetime)
  }

  /// The slot's direct dependencies, read under the owning store's lock.
  package var lockedDependencies: [AnySlot] {
    storeLock.withLock { dependencies }
  }

  /// The slot's direct dependencies, or nil when a container-wide override
  /// replaces it (what it reads is then the override's, not recorded), read
  /// under the owning store's lock.
  package var lockedDependenciesUnlessOverridden: [AnySlot]? {
    storeLock.withLock { overrideCell.pointee == nil ? dependencies : nil }
  }
}

@usableFromInline package final class Slot<T>: AnySlot, @unchecked Sendable {
  // @unchecked: see AnySlot; the same store lock guards these.
  @exclusivity(unchecked) private var value: T?
  private weak var object: AnyObject?
  /// Instances built by this slot's own factory for an override scope,
  /// because they depend on something the scope overrides; a handful at
  /// most (one per live scope that read the slot).
  @exclusivity(unchecked) private var scopeKept: [ScopeKept] = []

  override var keepsScopeInstancesLocked: Bool { !scopeKept.isEmpty }

  /// An instance kept for one override scope, with its own build state.
  struct ScopeKept {
    let scope: ObjectIdentifier
    var state = BuildState()
    var value: T?
    weak var object: AnyObject?
    var lifetime: Lifetime?
    /// When the instance was kept, in the process-wide order a shutdown
    /// follows.
    var sequence = 0

    var instance: T? {
      if let value { return value }
      if lifetime == .weak, let object { return object as? T }
      return nil
    }
  }

  /// A registered factory with its lifetime, for dialects that register
  /// before resolving.
  @usableFromInline package struct Registered {
    /// The factory, in an object of its own: a reader that keeps the
    /// registration's box alive calls it borrowed (``build(inBox:)``), which
    /// a closure stored in the box itself would not allow without a retain.
    @usableFromInline let built: Factory
    @usableFromInline package let lifetime: Lifetime

    @inlinable
    package init(factory: @escaping @Sendable () throws -> T, lifetime: Lifetime) {
      self.built = Factory(factory)
      self.lifetime = lifetime
    }

    /// The registered factory.
    @inlinable
    package var factory: @Sendable () throws -> T { built.run }

    /// Runs the factory of the registration in `box`, which the caller keeps
    /// alive (a hazard pointer on it) until this returns: the factory is
    /// neither copied nor retained.
    ///
    /// The factory object is loaded as `AnyObject` and downcast unchecked:
    /// where `T` is not known (a resolution through `ForgeContainerProtocol`,
    /// as a builder's), loading it as `Unmanaged<Factory>` looked up the
    /// metadata of `Factory` and of `Unmanaged<Factory>` on every build,
    /// about 650 instructions.
    @inlinable @inline(__always)
    package static func build(inBox box: UnsafeMutableRawPointer) throws -> T {
      let offset = MemoryLayout<Registered>.offset(of: \.built).unsafelyUnwrapped
      return try UnsafeRawPointer(box).load(fromByteOffset: offset, as: Unmanaged<AnyObject>.self)
        ._withUnsafeGuaranteedRef { try unsafeDowncast($0, to: Factory.self).run() }
    }
  }

  /// A registered factory, held by its ``Registered``.
  @usableFromInline package final class Factory: Sendable {
    @usableFromInline let run: @Sendable () throws -> T

    @inlinable
    init(_ run: @escaping @Sendable () throws -> T) { self.run = run }
  }

  /// The registered factory; read it with the store's lock held, or through
  /// ``AnySlot/registrationCell`` under the hazard pointer.
  package var registered: Registered? {
    registrationCell.pointee.map { $0.assumingMemoryBound(to: Registered.self).pointee }
  }

  /// Publishes `registered` and hands back the replaced box, to retire.
  /// Call with the store's lock held.
  func publishRegistration(_ registered: Registered) -> UnsafeMutableRawPointer? {
    let box = UnsafeMutablePointer<Registered>.allocate(capacity: 1)
    box.initialize(to: registered)
    return forge_exchange_seq_cst(registrationCell, UnsafeMutableRawPointer(box))
  }

  package init(name: SlotName, target: OverrideScope.Target, storeLock: ConditionLock) {
    super.init(name: name, target: target, storeLock: storeLock, valueType: T.self)
  }

  /// The stored instance, if it is still there.
  @inline(__always)
  package func stored() -> T? {
    if let value { return value }
    if storedLifetime == .weak, let object { return object as? T }
    return nil
  }

  /// Keeps `instance` according to `lifetime`, and hands back the box it
  /// replaced, if any, for the store to retire: a reader may still hold it.
  /// (Builds keep an instance only where none is kept, so there is none in
  /// practice; retiring it costs nothing and needs no proof.) A `.weak`
  /// value that is not a class instance cannot be held weakly and is not
  /// kept. Call with the store's lock held.
  package func store(_ instance: T, lifetime: Lifetime) -> UnsafeMutableRawPointer? {
    switch lifetime {
    case .transient:
      return nil
    case .weak:
      guard type(of: instance as Any) is AnyClass else { return nil }
      object = instance as AnyObject
      storedLifetime = .weak
      return nil
    default:
      value = instance
      storedLifetime = lifetime
      storedSequence = StoredSequence.next.add(1)
      let box: UnsafeMutablePointer<T>
      if MemoryLayout<T>.size <= AnySlot.inlineBoxBytes, MemoryLayout<T>.alignment <= MemoryLayout<UInt>.alignment,
        forge_counter_load(inlineBoxInUse) == 0
      {
        forge_counter_add(inlineBoxInUse, 1)
        box = inlineBox.assumingMemoryBound(to: T.self)
      } else {
        // Every cached hit reads the box, and the instance allocated just
        // before it has a reference count that every hit writes: a line
        // of its own.
        box = CacheLines.allocate(T.self)
      }
      box.initialize(to: instance)
      return forge_exchange_seq_cst(cell, UnsafeMutableRawPointer(box))
    }
  }

  // MARK: Scope-kept instances

  /// The instance kept for `scope`, if any.
  func scopeInstance(for scope: ObjectIdentifier) -> T? {
    for entry in scopeKept where entry.scope == scope { return entry.instance }
    return nil
  }

  /// Asks the build state of `scope`'s entry what to do, creating the
  /// entry; `created` is set when it did.
  func beginScopeBuild(
    for scope: ObjectIdentifier, by thread: ObjectIdentifier, lifetime: Lifetime, created: inout Bool
  ) -> BuildState.Step {
    let index =
      scopeKept.firstIndex { $0.scope == scope }
      ?? {
        created = true
        scopeKept.append(ScopeKept(scope: scope))
        return scopeKept.count - 1
      }()
    return scopeKept[index].state.begin(by: thread, hasInstance: scopeKept[index].instance != nil, lifetime: lifetime)
  }

  /// Ends a build for `scope`'s entry; keeps `instance` when the ticket is
  /// still current (and `instance` is given).
  func finishScopeBuild(
    for scope: ObjectIdentifier, ticket: BuildState.Ticket, keeping instance: T?, lifetime: Lifetime
  ) {
    guard let index = scopeKept.firstIndex(where: { $0.scope == scope }) else { return }
    guard let instance else { return scopeKept[index].state.abandon(ticket) }
    if scopeKept[index].state.finish(ticket) { keepInScopeEntry(at: index, instance, lifetime: lifetime) }
  }

  /// Keeps `instance` for `scope`, built by a container build that turned
  /// out to depend on the scope's overrides; true when the slot had no
  /// entry for the scope before.
  func keepInScope(_ scope: ObjectIdentifier, _ instance: T, lifetime: Lifetime) -> Bool {
    if let index = scopeKept.firstIndex(where: { $0.scope == scope }) {
      if scopeKept[index].instance == nil { keepInScopeEntry(at: index, instance, lifetime: lifetime) }
      return false
    }
    scopeKept.append(ScopeKept(scope: scope))
    keepInScopeEntry(at: scopeKept.count - 1, instance, lifetime: lifetime)
    return true
  }

  private func keepInScopeEntry(at index: Int, _ instance: T, lifetime: Lifetime) {
    switch lifetime {
    case .transient: return
    case .weak:
      guard type(of: instance as Any) is AnyClass else { return }
      scopeKept[index].object = instance as AnyObject
    default:
      scopeKept[index].value = instance
    }
    scopeKept[index].lifetime = lifetime
    scopeKept[index].sequence = StoredSequence.next.add(1)
  }

  package override func scopeKeptInstance(of scope: ObjectIdentifier) -> Any? {
    scopeInstance(for: scope).map { $0 as Any }
  }

  package override func takeScopeKept(of scope: ObjectIdentifier) -> [(sequence: Int, instance: Any)] {
    var taken: [(sequence: Int, instance: Any)] = []
    scopeKept.removeAll { entry in
      guard entry.scope == scope else { return false }
      if let instance = entry.instance { taken.append((entry.sequence, instance)) }
      return true
    }
    return taken
  }

  package override func dropScopeKept(of scope: ObjectIdentifier) -> [Any] {
    var dropped: [Any] = []
    scopeKept.removeAll { entry in
      guard entry.scope == scope else { return false }
      if let value = entry.value { dropped.append(value) }
      return true
    }
    return dropped
  }

  package override func clearScopeKept(
    in scopes: Set<ObjectIdentifier>? = nil, where matches: (Lifetime) -> Bool
  ) -> [Any] {
    var dropped: [Any] = []
    for index in scopeKept.indices where scopes?.contains(scopeKept[index].scope) ?? true {
      guard let lifetime = scopeKept[index].lifetime ?? scopeKept[index].state.buildingLifetime, matches(lifetime)
      else {
        continue
      }
      if let value = scopeKept[index].value { dropped.append(value) }
      scopeKept[index].value = nil
      scopeKept[index].object = nil
      scopeKept[index].lifetime = nil
      scopeKept[index].state.invalidate()
    }
    return dropped
  }

  override func destroyTyped(_ box: UnsafeMutableRawPointer, kind: BoxKind) {
    if kind == .registration {
      let typed = box.assumingMemoryBound(to: Registered.self)
      typed.deinitialize(count: 1)
      typed.deallocate()
    } else {
      let typed = box.assumingMemoryBound(to: T.self)
      typed.deinitialize(count: 1)
      if box == inlineBox {
        forge_counter_add(inlineBoxInUse, -1)
      } else {
        CacheLines.deallocate(typed)
      }
    }
  }

  package override func takeStored() -> (instance: Any?, box: UnsafeMutableRawPointer?) {
    defer {
      value = nil
      object = nil
      storedLifetime = nil
    }
    let box = forge_exchange_seq_cst(cell, nil)
    if let value { return (value, box) }
    return (nil, box)
  }

  package override var storedInstance: Any? {
    if let value { return value }
    if storedLifetime == .weak, let object { return object }
    return nil
  }
}

/// A member's name, rendered once: see ``AnySlot/name``.
final class RenderedName: Sendable {
  let text: String
  init(_ text: String) { self.text = text }
}

/// How a slot is named in messages: words, or a type rendered only when a
/// message needs it (rendering a type's name costs more than registering).
@usableFromInline package enum SlotName: Sendable, ExpressibleByStringInterpolation {
  case text(String)
  case type(Any.Type)
  /// A member of a type, `Owner.member`, as Forge names a container's
  /// property: rendered only when asked for, so that making a slot neither
  /// prints the container's type nor allocates the joined string (64
  /// bytes a key, kept as long as the slot).
  case member(of: Any.Type, String)

  @inlinable
  package init(stringLiteral text: String) { self = .text(text) }

  @inlinable
  package init(stringInterpolation: DefaultStringInterpolation) {
    self = .text(String(stringInterpolation: stringInterpolation))
  }

  @usableFromInline package var rendered: String {
    switch self {
    case .text(let text): text
    case .type(let type): TypeName.of(type)
    case .member(let owner, let member): "\(String(describing: owner)).\(member)"
    }
  }
}
