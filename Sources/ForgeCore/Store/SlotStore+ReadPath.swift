import CForgeAtomics

/// The entry points every dialect calls, inlinable so that the caller's
/// call specialises them for its `T`, and the lock-free hit they start with.
///
/// A hit takes no lock and allocates nothing: the calling thread finds the
/// slot in the store's published ``SlotTable`` (one hash of the key's bits,
/// whatever the number of slots) and reads the published instance under
/// its hazard pointer. Everything else (a
/// build, an override, a scope, a key the thread has not seen) goes to
/// ``resolveGeneral(bits:key:lifetime:name:factory:known:thread:)``.
extension SlotStore {
  /// The table entry for `bits`, when no override can apply to it and it
  /// holds a `T`, found in a read section of its own on `thread`'s
  /// counter. See ``typedEntry(bits:as:comparingType:in:section:)`` for
  /// `comparingType`.
  @inlinable @inline(__always)
  func entryPastGates<T>(
    bits: SlotKeyBits?,
    as type: T.Type,
    comparingType: Bool,
    in thread: UnsafeMutablePointer<ThreadFastState>
  ) -> SlotTableEntry? {
    guard !thread.pointee.isCapturing, let bits else { return nil }
    return fastEntry(bits: bits, as: T.self, comparingType: comparingType, section: thread)
  }

  /// The entry for `bits` of the fast path's table, when it holds a `T`:
  /// nil while anything holds the store on its general path (see
  /// ``fastTableCell``). The caller checked that the thread is not
  /// capturing. The probe runs in a read section of its own on
  /// `section`'s counter (see ``tableEntry(bits:in:holding:section:)``).
  @inlinable @inline(__always)
  func fastEntry<T>(
    bits: SlotKeyBits,
    as type: T.Type,
    comparingType: Bool,
    section: UnsafeMutablePointer<ThreadFastState>
  ) -> SlotTableEntry? {
    typedEntry(bits: bits, as: T.self, comparingType: comparingType, in: fastTable, section: section)
  }

  /// The entry for `bits`, read without the lock: of the published table
  /// (``tableCell``) when `fastTable` is nil, else of the fast path's
  /// (``fastTableCell``, which is never empty), through the cell the
  /// caller passes (its dialect may keep the store's ``fastTable``).
  ///
  /// The probe reads the table in a read section of its own on the
  /// counter of `section`, the calling thread's state (see ``SlotTable``),
  /// and copies the entry out before the section ends
  /// (``entryOutlivingSection(_:)``: an entry whose slot may go reads as
  /// none).
  @inlinable @inline(__always)
  func tableEntry(
    bits: SlotKeyBits,
    in fastTable: FastTableCell? = nil,
    holding valueType: SlotTableEntry.TypeCheck = .none,
    section: UnsafeMutablePointer<ThreadFastState>
  ) -> SlotTableEntry? {
    let reads = section.reads
    forge_read_enter(reads)
    guard let match = tableMatchInSection(bits: bits, in: fastTable, holding: valueType),
      let entry = entryOutlivingSection(match)
    else {
      forge_read_exit(reads)
      return nil
    }
    forge_read_exit(reads)
    return entry
  }

  /// The entry `match` found, copied out for use after its read section
  /// ends; call inside that section. Nil when the entry's slot may go
  /// (``SlotTableMatch/slotMayGo``, only ever so for made-up keys): the
  /// caller would use the slot after the section, so it reads the entry as
  /// none, and the general path finds the slot under the lock.
  @inlinable @inline(__always)
  func entryOutlivingSection(_ match: SlotTableMatch) -> SlotTableEntry? {
    Key.keysAreMadeUp && match.slotMayGo ? nil : SlotTableEntry(match)
  }

  /// The entry for `bits`, in place, for a caller already inside a read
  /// section, with this store's key words (see
  /// ``SlotTable/matchInSection(in:for:comparingSecond:comparingThird:cellIsNeverEmpty:holding:)``):
  /// the one probe both ``tableEntry(bits:in:holding:section:)`` and a
  /// hit's ``beginFastRead(bits:as:comparingType:known:fastTable:thread:)``
  /// make.
  @inlinable @inline(__always)
  func tableMatchInSection(
    bits: SlotKeyBits,
    in fastTable: FastTableCell?,
    holding valueType: SlotTableEntry.TypeCheck
  ) -> SlotTableMatch? {
    SlotTable.matchInSection(
      in: fastTable?.cell ?? tableCell, for: bits, comparingSecond: Key.identityUsesSecondWord,
      comparingThird: Key.identityUsesThirdWord, cellIsNeverEmpty: fastTable != nil, holding: valueType)
  }

  /// ``tableEntry(bits:in:holding:section:)`` when its slot holds `T`s.
  ///
  /// `comparingType` false is for keys under which every slot holds `T`s
  /// by construction (ForgeInject's async and main-actor keys of a type,
  /// ``ObjectIdentifier/init(_:tag:)``, hold only that type's handles): the
  /// entry's type is then not compared in release builds, which saves the
  /// read asking the runtime for a generic handle type's metadata. Debug
  /// builds compare it still, and stop if it differs.
  @inlinable @inline(__always)
  func typedEntry<T>(
    bits: SlotKeyBits,
    as type: T.Type,
    comparingType: Bool,
    in fastTable: FastTableCell? = nil,
    section: UnsafeMutablePointer<ThreadFastState>
  ) -> SlotTableEntry? {
    tableEntry(bits: bits, in: fastTable, holding: Self.typeCheck(T.self, comparingType), section: section)
  }

  /// What a lookup of `T`s checks of an entry's type (see
  /// ``typedEntry(bits:as:comparingType:in:section:)``).
  @inlinable @inline(__always)
  static func typeCheck<T>(_ type: T.Type, _ comparingType: Bool) -> SlotTableEntry.TypeCheck {
    let wanted = UInt(bitPattern: ObjectIdentifier(T.self))
    return comparingType ? .compared(wanted) : .asserted(wanted, T.self)
  }

  /// Starts reading the instance of `T` published for `bits` in the fast
  /// path's table, in one read section from the table's probe to the
  /// copy: the read, or nil with the section closed, and in `known` the
  /// entry when the table has one but nothing is published in it.
  @inlinable @inline(__always)
  func beginFastRead<T>(
    bits: SlotKeyBits,
    as type: T.Type,
    comparingType: Bool,
    known: inout SlotTableEntry?,
    fastTable: FastTableCell? = nil,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) -> PublishedRead? {
    let reads = thread.reads
    forge_read_enter(reads)
    guard
      let match = tableMatchInSection(
        bits: bits, in: fastTable ?? self.fastTable, holding: Self.typeCheck(T.self, comparingType))
    else {
      forge_read_exit(reads)
      return nil
    }
    guard let box = forge_load_seq_cst(match.cell) else {
      // Copied out before the section ends, only on this path.
      known = entryOutlivingSection(match)
      forge_read_exit(reads)
      return nil
    }
    return PublishedRead(box: box, reads: reads)
  }

  /// Starts reading the instance published for `bits`, when no override can
  /// apply and no build in progress records what it resolves (so nothing
  /// needs noting): the cheapest hit, for a dialect's entry point
  /// to try before it builds any closure or key. ``PublishedRead/take(_:)``
  /// copies the instance out and ends the read. `comparingType` false only
  /// for a key whose slots all hold `T`s
  /// (``typedEntry(bits:as:comparingType:in:section:)``).
  ///
  /// ```swift
  /// if let read = store.beginPublishedRead(bits: bits, as: T.self, comparingType: true) {
  ///   return read.take(T.self)
  /// }
  /// ```
  @inlinable @inline(__always)
  package func beginPublishedRead<T>(bits: SlotKeyBits?, as type: T.Type, comparingType: Bool) -> PublishedRead? {
    guard let thread = ResolutionContext.clearFastReader, let bits else { return nil }
    var known: SlotTableEntry?
    return beginFastRead(bits: bits, as: T.self, comparingType: comparingType, known: &known, thread: thread)
  }

  /// The instance published for `bits`, when no override can apply and no
  /// build in progress records: the lock-free hit, for a dialect's entry
  /// point to try before anything else. On a miss, `known` is the entry
  /// the table holds for `bits` (nothing published: a transient, a kept
  /// instance not built yet, or a build in progress that records), if the
  /// read found one whose slot cannot go (``SlotTableMatch/slotMayGo``),
  /// so that the miss does not look the key up again.
  ///
  /// It starts with the thread's state as the thread-local holds it: a
  /// thread's first resolution is a miss, and the miss makes the state. A
  /// thread whose innermost build records what it resolves misses without
  /// an entry: the general path records the read. `comparingType` false
  /// only for a key whose slots all hold `T`s
  /// (``typedEntry(bits:as:comparingType:in:section:)``). A
  /// dialect that keeps its store's ``fastTable`` passes it.
  /// A dialect calls its miss in a function of its own, out of line and
  /// with few arguments: the hit then needs only a small frame (the
  /// general path's arguments and closures are set up there).
  ///
  /// ```swift
  /// var known: SlotTableEntry?
  /// if let value = store.publishedValue(bits: bits, as: T.self, known: &known) { return value }
  /// return resolveMissed(provider, known: known)
  /// ```
  @inlinable @inline(__always)
  package func publishedValue<T>(
    bits: SlotKeyBits?,
    as type: T.Type,
    comparingType: Bool = true,
    known: inout SlotTableEntry?,
    fastTable: FastTableCell? = nil,
    reader: UnsafeMutablePointer<ThreadFastState>? = nil
  ) -> T? {
    // The thread's flag and the gate first, in one load: a raised gate asks
    // the task, out of line, and nothing the read loads is held across
    // that call. A dialect may ask first (`reader`): then not even the
    // store is.
    guard let thread = reader ?? ResolutionContext.clearFastReader, let bits,
      let read = beginFastRead(
        bits: bits, as: T.self, comparingType: comparingType, known: &known, fastTable: fastTable, thread: thread)
    else { return nil }
    return read.take(T.self)
  }

  /// A transient's instance, built at once with `factory` on the calling
  /// thread, when the table holds a slot of `T`s for `bits` whose
  /// dependencies are recorded, no override can apply and no build in
  /// progress records (the cases ``publishedValue(bits:as:comparingType:known:fastTable:)`` serves
  /// for a kept instance); else what `otherwise` returns: the caller's
  /// general path, which also makes the slot on a first build. The caller
  /// knows the dependency is a transient. For a dialect's entry point, so
  /// that the common transient build sets up none of the general path's
  /// closures.
  ///
  /// ```swift
  /// return try store.builtTransient(bits: key.identityBits, as: T.self, factory: factory) {
  ///   try store.resolve(key, lifetime: .transient, name: name, factory: factory)
  /// }
  /// ```
  @inlinable @inline(__always)
  package func builtTransient<T>(
    bits: SlotKeyBits?,
    as type: T.Type,
    factory: () throws -> T,
    otherwise missed: () throws -> T
  ) throws -> T {
    guard let thread = ResolutionContext.clearFastReader, let bits,
      let entry = fastEntry(bits: bits, as: T.self, comparingType: true, section: thread)
    else { return try missed() }
    return try buildTransientAtOnce(
      entry.slot, lifetime: .transient, factory: factory, thread: thread, recordsNothing: true, otherwise: missed)
  }

  /// What the lock-free path would serve for `bits` on this thread, or nil
  /// when it would take the locked path. For tests and introspection.
  package func published<T>(bits: SlotKeyBits, as type: T.Type) -> T? {
    _ = ResolutionContext.currentFast  // a thread's first read makes its state: not a reason to miss
    return beginPublishedRead(bits: bits, as: T.self, comparingType: true)?.take(T.self)
  }

  /// Resolves `key`, building with `factory` when no override applies and no
  /// kept instance exists.
  ///
  /// ```swift
  /// let service = try store.resolve("service", lifetime: .singleton, name: "AppContainer.service") {
  ///   Service()
  /// }
  /// ```
  @inlinable
  package func resolve<T>(
    _ key: Key,
    lifetime: Lifetime,
    name: @autoclosure () -> SlotName,
    factory: () throws -> T
  ) throws -> T {
    try resolveByBits(bits: key.identityBits, key: key, lifetime: lifetime, name: name(), factory: factory)
  }

  /// Resolves the key whose identity bits are `bits`, building the key
  /// itself only on the locked path: for object keys, making the key would
  /// retain the shared object on every call.
  ///
  /// Inlinable, so that a dialect's inlinable entry point specialises the
  /// common cases for the caller's `T`: a kept instance this thread knows,
  /// and a build of a known transient that records nothing.
  @inlinable
  package func resolveByBits<T>(
    bits: SlotKeyBits?,
    key: @autoclosure () -> Key,
    lifetime: Lifetime,
    name: @autoclosure () -> SlotName,
    factory: () throws -> T
  ) throws -> T {
    let thread = ResolutionContext.currentFast
    func general(known: Unmanaged<AnySlot>?) throws -> T {
      try resolveGeneral(
        bits: bits, key: key(), lifetime: lifetime, name: name(), factory: factory, known: known, thread: thread)
    }
    guard !thread.pointee.isCapturing, let bits,
      let entry = typedEntry(bits: bits, as: T.self, comparingType: true, section: thread)
    else {
      return try general(known: nil)
    }
    let slot = entry.slot
    // Not capturing (above): the flag says whether a build records.
    let recordsNothing = !thread.pointee.skipsFastReads
    if recordsNothing, Gates.isDown {
      // One load: the overrides, and any observer (see observerWeight).
      let overrides = overrideCount.value
      if overrides == 0 {
        if !lifetime.isStored {
          return try buildTransientAtOnce(slot, lifetime: lifetime, factory: factory, thread: thread) {
            try general(known: slot)
          }
        }
        if let read = thread.beginRead(entry.cell) {
          return read.take(T.self)
        }
      } else if let value = try builtByContainerOverride(slot, as: T.self, overrides: overrides, thread: thread) {
        return value
      }
    } else if recordsNothing, overrideCount.value == 0 {
      return try servedInScope(slot, cell: entry.cell, isKept: lifetime.isStored, as: T.self, thread: thread) {
        try general(known: slot)
      }
    }
    return try general(known: slot)
  }

  /// The instance `slot`'s container-wide override serves, in its common
  /// cases: one that keeps nothing (Forge's), or one whose kept instance
  /// exists (SwiftPod's), with nothing to record; else nil, and the general
  /// path decides. `overrides` is the store's override count as the caller
  /// read it (not 0); the caller checked that no scope is active and that
  /// the thread records nothing. An override's factory never records the
  /// slot's dependencies, so unlike the slot's own build this does not wait
  /// for them to be recorded (a slot only ever served by its override never
  /// has them). The override's factory runs while this depth's hazard
  /// pointer holds it.
  @inlinable @inline(__always)
  func builtByContainerOverride<T>(
    _ slot: Unmanaged<AnySlot>,
    as type: T.Type,
    overrides: Int,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T? {
    guard overrides < Self.observerWeight, thread.pointee.holdsOverrideAcrossBuild,
      thread.pointee.firstFrame(building: slot) == nil
    else { return nil }
    let overrideHazard = thread.overrideHazard
    let overrideCell = slot._withUnsafeGuaranteedRef { $0.overrideCell }
    guard let box = thread.pointee.beginHeldRead(overrideCell, hazard: overrideHazard) else { return nil }
    let override = box.load(as: Unmanaged<AnyOverride>.self)
    if buildsEachTime(override, as: T.self) {
      defer { thread.pointee.endHeldRead(hazard: overrideHazard) }
      return try buildWithOverride(slot, override, as: T.self, thread: thread)
    }
    if let kept = beginKeptOverrideRead(override, as: T.self, thread: thread) {
      let value = kept.take(T.self)
      thread.pointee.endHeldRead(hazard: overrideHazard)
      return value
    }
    thread.pointee.endHeldRead(hazard: overrideHazard)
    return nil
  }

  /// What a kept dependency's miss serves before its general path, so
  /// that the common reads set up none of the general path's closures
  /// (about 50 instructions, in Forge's); else nil, and the caller takes
  /// its general path. The scope gate is read once and decides:
  ///
  /// - **Raised** (``servedInTaskScopeOutOfLine(bits:as:servesPublished:)``,
  ///   out of line: inlined, it cost the override case below registers):
  ///   with no override installed on the container, what
  ///   ``servedInScope(_:cell:isKept:as:thread:otherwise:)`` serves, the
  ///   task's scope's override, or the published instance where the
  ///   task's scope, if any, leaves the dependency alone.
  /// - **Down**, with overrides installed on the container: the slot's
  ///   container-wide override
  ///   (``builtByContainerOverride(_:as:overrides:thread:)``), or, when the
  ///   slot has none, its published instance, as a plain hit would serve
  ///   it.
  ///
  /// The published instance only when `servesPublished` (not when a
  /// preview factory would serve the read instead). The table must hold a
  /// slot of `T`s for `bits`, no observer or parked key read may hold the
  /// container on the general path, and no build in progress may record.
  ///
  /// ```swift
  /// let servesPublished = preview == nil || !PreviewMode.mightBeActive
  /// if let value = try store.servedPastOverrides(bits: key.identityBits, as: T.self, servesPublished: servesPublished) {
  ///   return value
  /// }
  /// ```
  @inlinable @inline(__always)
  package func servedPastOverrides<T>(
    bits: SlotKeyBits?,
    as type: T.Type,
    servesPublished: Bool
  ) throws -> T? {
    guard let bits else { return nil }
    guard Gates.isDown else {
      return try servedInTaskScopeOutOfLine(bits: bits, as: T.self, servesPublished: servesPublished)
    }
    // Not while an observer or a parked key read holds the general path.
    let overrides = overrideCount.value
    guard Self.onlyOverridesInstalled(overrides),
      let thread = ResolutionContext.fastReader,
      let entry = typedEntry(bits: bits, as: T.self, comparingType: true, section: thread)
    else { return nil }
    let slot = entry.slot
    if let value = try builtByContainerOverride(slot, as: T.self, overrides: overrides, thread: thread) {
      return value
    }
    // Not overridden: its published instance, if it has one. An override
    // installed since is a race the plain hit has too.
    guard servesPublished, slot._withUnsafeGuaranteedRef({ $0.overrideCell.pointee == nil }),
      let read = thread.beginRead(entry.cell)
    else { return nil }
    return read.take(T.self)
  }

  /// ``servedPastOverrides(bits:as:servesPublished:)`` with the scope gate
  /// raised: with no override installed on the container, the calling
  /// task's scope's override, or the published instance where the task's
  /// scope, if any, leaves the dependency alone (only when
  /// `servesPublished`); else nil.
  @inlinable @inline(never)
  func servedInTaskScopeOutOfLine<T>(
    bits: SlotKeyBits,
    as type: T.Type,
    servesPublished: Bool
  ) throws -> T? {
    guard overrideCount.value == 0, let thread = ResolutionContext.fastReader,
      let entry = typedEntry(bits: bits, as: T.self, comparingType: true, section: thread)
    else { return nil }
    switch scopedShortcut(entry.slot, valueType: ObjectIdentifier(T.self), isKept: true, thread: thread) {
    case .none:
      return nil
    case .published:
      guard servesPublished, let read = thread.beginRead(entry.cell) else { return nil }
      return read.take(T.self)
    case .override(let override):
      // The scope keeps the override, and the task's binding the scope.
      return try buildWithOverride(entry.slot, override, as: T.self, thread: thread)
    }
  }

  /// What a read in the calling task's override scope serves, in its
  /// common cases, with nothing to record: the instance an override of the
  /// scope builds for `slot` when it keeps nothing (Forge's
  /// `withOverrides`), or the container's published instance of a kept
  /// dependency that the scope neither overrides nor reaches an override
  /// from (only when `isKept`: a transient publishes nothing, so a caller
  /// that does not know the lifetime may pass true); else what `otherwise`
  /// returns: the general path decides. The caller checked
  /// that the thread records nothing and that no container-wide override
  /// is installed. The general path's front
  /// (``resolveByBits(bits:key:lifetime:name:factory:)``) tries it: the
  /// task's scope is read once here, where the general path would read it
  /// again, with two more task-locals.
  ///
  /// No `T?` on the way: where `T` is not known (a ForgeInject builder's
  /// resolution through `ForgeContainerProtocol`), the caller would look up
  /// `Optional<T>`'s metadata on every call, scope or not.
  @inlinable @inline(__always)
  func servedInScope<T>(
    _ slot: Unmanaged<AnySlot>,
    cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    isKept: Bool,
    as type: T.Type,
    thread: UnsafeMutablePointer<ThreadFastState>,
    otherwise missed: () throws -> T
  ) throws -> T {
    switch scopedShortcut(slot, valueType: ObjectIdentifier(T.self), isKept: isKept, thread: thread) {
    case .none:
      return try missed()
    case .published:
      guard let read = thread.beginRead(cell) else { return try missed() }
      return read.take(T.self)
    case .override(let override):
      // The scope keeps the override, and the task's binding the scope,
      // while this task runs inside it.
      return try buildWithOverride(slot, override, as: T.self, thread: thread)
    }
  }

  /// The shortcut a read of `slot`, of values of `valueType`, in the calling
  /// task's override scope may take. Not generic, so the scope's lookup is
  /// compiled once. An override's build marks the scope used by the builds
  /// in progress; one that would close a cycle is left to the general path.
  ///
  /// The published instance is served only where the general path would
  /// serve it too, with nothing else to do: no work bound to a task (a
  /// recording async build, an asynchronous validation) runs anywhere,
  /// which the general path would look for in two more task-locals; no
  /// scope shut a store down; the scope has no strict mode, which checks
  /// every read; and the slot's recorded dependencies reach none of the
  /// scope's overrides, nor does the scope isolate its store.
  @usableFromInline
  func scopedShortcut(
    _ slot: Unmanaged<AnySlot>,
    valueType: ObjectIdentifier,
    isKept: Bool,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) -> ScopedShortcut {
    var onlyScopes: Bool {
      Gates.runsNoTaskBoundWorkAnywhere && Gates.scopedShutdowns.value == 0
    }
    // Unretained: the task's binding keeps the scope while the task runs
    // inside it, and the scope its overrides.
    guard let current = OverrideScope.currentUnretained else {
      // Another task's scope raised the gate: this one reads as outside any.
      return isKept && onlyScopes ? .published : .none
    }
    return current._withUnsafeGuaranteedRef { scope in
      if let found = slot._withUnsafeGuaranteedRef({ scope.override(forSlot: $0) }) {
        guard found.override._withUnsafeGuaranteedRef({ !$0.lifetime.isStored && $0.keptSlot.valueType == valueType }),
          thread.pointee.firstFrame(building: slot) == nil
        else { return .none }
        thread.pointee.markScopeUsed(depth: found.depth)
        return .override(found.override)
      }
      guard isKept, onlyScopes, !scope.hasStrictMode,
        slot._withUnsafeGuaranteedRef({ $0.dependenciesRecorded.value != 0 && scope.reachDepth(from: $0) == 0 })
      else { return .none }
      return .published
    }
  }

  /// A transient's build with `slot`, its slot, recording nothing, when
  /// `lifetime` keeps no instance and
  /// ``canBuildRecordingNothing(_:thread:recordsNothing:)``; else what
  /// `otherwise` returns: the general path builds. No override may apply;
  /// the caller checks that.
  ///
  /// No `T?` on the way, as for every path a builder's resolution may take
  /// unspecialised (see the ReadPath article).
  @inlinable @inline(__always)
  func buildTransientAtOnce<T>(
    _ slot: Unmanaged<AnySlot>,
    lifetime: Lifetime,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    recordsNothing: Bool = false,
    otherwise missed: () throws -> T
  ) throws -> T {
    guard !lifetime.isStored, canBuildRecordingNothing(slot, thread: thread, recordsNothing: recordsNothing) else {
      return try missed()
    }
    var scopeDepth = 0  // no scope applies: stays 0
    return try buildRecordingNothing(slot, factory: factory, thread: thread, scopeDepth: &scopeDepth)
  }

  /// Whether `slot` can be built right now by
  /// ``buildRecordingNothing(_:factory:thread:scopeDepth:)``: its
  /// dependencies are recorded already, no build in progress records, and
  /// building it closes no cycle. No override may apply; the caller checks
  /// that. A caller that has just found the thread recording nothing says
  /// so with `recordsNothing`.
  @inlinable @inline(__always)
  func canBuildRecordingNothing(
    _ slot: Unmanaged<AnySlot>,
    thread: UnsafeMutablePointer<ThreadFastState>,
    recordsNothing: Bool = false
  ) -> Bool {
    (recordsNothing || thread.pointee.recordsNothing)
      && slot._withUnsafeGuaranteedRef { $0.dependenciesRecorded.value != 0 }
      && thread.pointee.firstFrame(building: slot) == nil
  }

  /// Builds `slot` with `factory` on the calling thread's chain, with a
  /// frame in the thread's raw memory and nothing recorded; the caller (or
  /// the store) keeps the slot. Reports the depth of the innermost override
  /// scope the build used (0: none).
  @inlinable @inline(__always)
  func buildRecordingNothing<T>(
    _ slot: Unmanaged<AnySlot>,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>,
    scopeDepth: inout Int
  ) throws -> T {
    thread.pointee.push(slot, recordingFrom: nil)
    let value: T
    do {
      value = try factory()
    } catch {
      _ = thread.pointee.pop()
      throw error
    }
    scopeDepth = thread.pointee.pop().scopeDepth
    return value
  }

  /// ``resolveByBits(bits:key:lifetime:name:factory:)`` for every case, out
  /// of line: `known` is the slot the thread's cache holds for `bits`, if
  /// the front found one.
  @usableFromInline
  func resolveGeneral<T>(
    bits: SlotKeyBits?,
    key: @autoclosure () -> Key,
    lifetime: Lifetime,
    name: @autoclosure () -> SlotName,
    factory: () throws -> T,
    known: Unmanaged<AnySlot>?,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    // This thread knows the slot: no lock to find it, no hash of the key.
    if let known {
      return try resolveKnownSlot(known, lifetime: lifetime, factory: factory, thread: thread)
    }
    if thread.pointee.isCapturing, let placeholder = try capture(key(), as: T.self, in: thread.pointee.owner) {
      return placeholder as! T
    }
    return try resolveLocked(
      key(), lifetime: lifetime, name: name(), factory: factory, servesPreview: false, thread: thread)
  }

  /// Whether `override` builds a `T` every time: it keeps nothing, and its
  /// type is the slot's.
  @inlinable @inline(__always)
  func buildsEachTime<T>(_ override: Unmanaged<AnyOverride>, as type: T.Type) -> Bool {
    override._withUnsafeGuaranteedRef { !$0.lifetime.isStored && $0.keptSlot.valueType == ObjectIdentifier(T.self) }
  }

  /// Starts reading the instance `override` keeps, when it keeps a `T` and
  /// has one: the box, held by the thread's hazard pointer, for
  /// ``PublishedRead/take(_:)``. The caller holds `override`.
  @inlinable @inline(__always)
  func beginKeptOverrideRead<T>(
    _ override: Unmanaged<AnyOverride>,
    as type: T.Type,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) -> PublishedRead? {
    override._withUnsafeGuaranteedRef {
      guard $0.lifetime.isStored, $0.keptSlot.valueType == ObjectIdentifier(T.self) else { return nil }
      return thread.beginRead($0.keptSlot.cell)
    }
  }

  /// Builds `slot` with the factory of `override`, which the caller holds
  /// and which ``buildsEachTime(_:as:)`` accepted; nothing is recorded.
  /// `T` is named, not inferred: a caller returning `T?` would otherwise
  /// build for `T?`, and the unchecked downcast below would be wrong.
  @inlinable @inline(__always)
  func buildWithOverride<T>(
    _ slot: Unmanaged<AnySlot>,
    _ override: Unmanaged<AnyOverride>,
    as type: T.Type,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    var scopeDepth = 0  // the caller marks the scope's use itself
    return try override._withUnsafeGuaranteedRef { override in
      try buildRecordingNothing(
        slot,
        factory: unsafeDowncast(override, to: Override<T>.self).make,
        thread: thread,
        scopeDepth: &scopeDepth
      )
    }
  }

  /// Resolves `known`, found in the table. The store keeps every slot a
  /// reader may take out of its read section as long as it lives (a slot
  /// that may go reads as none, see ``SlotTableMatch/slotMayGo``), so the
  /// slot is used without a retain.
  @usableFromInline
  func resolveKnownSlot<T>(
    _ known: Unmanaged<AnySlot>,
    lifetime: Lifetime,
    factory: () throws -> T,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    try known._withUnsafeGuaranteedRef { anySlot in
      let slot = unsafeDowncast(anySlot, to: Slot<T>.self)
      // With the gate raised, an async factory's resolution may be recorded.
      if !thread.pointee.recordsNothing || Gates.activeOverrideScopes.value != 0 {
        thread.pointee.owner.recordDependency(slot)
      }
      guard Gates.activeOverrideScopes.value == 0, overrideCount.value == 0 else {
        return try resolveLayers(slot, lifetime: lifetime, factory: factory, servesPreview: false, thread: thread)
      }
      guard lifetime.isStored else { return try buildOwn(slot, factory: factory, thread: thread) }
      if let read = thread.beginRead(slot.cell) {
        return read.take(T.self)
      }
      return try resolveKept(slot, keeper: nil, lifetime: lifetime, factory: factory, thread: thread, scope: nil)
    }
  }

  /// The general path: finds the slot under the lock (making it, and
  /// publishing it in the table, on first use) and applies the layers.
  func resolveLocked<T>(
    _ key: Key,
    lifetime: Lifetime,
    name: @autoclosure () -> SlotName,
    factory: () throws -> T,
    servesPreview: Bool,
    thread: UnsafeMutablePointer<ThreadFastState>
  ) throws -> T {
    var released: [Any] = []
    var boxes: [RetiredBox] = []
    lock.lock()
    let slot: Slot<T>
    do {
      slot = try slotLocked(
        for: key, name: name(), released: &released, boxes: &boxes, publishesAtOnce: lifetime.isStored)
    } catch {
      lock.unlock()
      throw error
    }
    lock.unlock()
    release(released, boxes: boxes)
    thread.pointee.owner.recordDependency(slot)
    return try resolveLayers(slot, lifetime: lifetime, factory: factory, servesPreview: servesPreview, thread: thread)
  }

  /// Resolves `key` with its preview factory, `preview`: the layer below
  /// the overrides and above the key's own instances (see ``Layer``). The
  /// preview's instances are never kept.
  ///
  /// ```swift
  /// if PreviewMode.isActive {
  ///   return try store.resolvePreview("service", name: "AppContainer.service") { MockService() }
  /// }
  /// ```
  @usableFromInline
  package func resolvePreview<T>(_ key: Key, name: @autoclosure () -> SlotName, preview: () throws -> T) throws -> T {
    let thread = ResolutionContext.currentFast
    if thread.pointee.isCapturing, let placeholder = try capture(key, as: T.self, in: thread.pointee.owner) {
      return placeholder as! T
    }
    return try resolveLocked(
      key, lifetime: .transient, name: name(), factory: preview, servesPreview: true, thread: thread)
  }
}

/// What ``servedInScope(_:cell:isKept:as:thread:otherwise:)`` may serve.
@usableFromInline enum ScopedShortcut {
  /// Nothing: the general path decides.
  case none
  /// The container's published instance, if there is one.
  case published
  /// A build with `override`, which keeps nothing. The task's scope keeps
  /// it: the task's binding keeps the scope while the task runs inside it,
  /// the override's build included.
  case override(Unmanaged<AnyOverride>)
}
