import CForgeAtomics

/// Lock-free readers and deferred reclamation.
///
/// A reader takes a published instance inside a read
/// (`beginRead(_:)` on the thread's state: its thread's read counter is odd
/// meanwhile), and an override or a registration under one of its thread's
/// hazard pointers (``ThreadFastState/beginHeldRead(_:hazard:)``); a store
/// that takes a box out of its cell retires it here and destroys it only
/// once no thread can be reading it and no hazard pointer holds it.
///
/// Every thread that ever resolved has one record in ``ThreadRecords``,
/// removed when the thread ends: stores keep no per-thread state, so memory
/// and the cost of a reclaim follow the threads alive now, not every thread
/// that ever resolved.
struct RetiredBoxes {
  private var boxes: [RetiredBox] = []

  /// Keeps `box`, taken out of one of `slot`'s cells, until no reader holds it.
  mutating func retire(_ box: UnsafeMutableRawPointer?, of slot: AnySlot, kind: AnySlot.BoxKind) {
    if let box { boxes.append(RetiredBox(slot: slot, box: box, kind: kind)) }
  }

  /// Takes the boxes no reader holds any more, to destroy after unlocking.
  mutating func reclaim() -> [RetiredBox] {
    // No fence, no telling what readers hold: every box stays retired.
    guard !boxes.isEmpty, let held = ThreadRecords.heldBoxes() else { return [] }
    var free: [RetiredBox] = []
    boxes.removeAll { entry in
      if held.contains(entry.box) { return false }
      free.append(entry)
      return true
    }
    // A reset of many instances retires as many boxes at once: the room
    // goes with them, not kept as long as the store.
    if boxes.isEmpty, boxes.capacity > 64 { boxes = [] }
    return free
  }

  /// Destroys every box; only when no reader can exist (the store is going).
  mutating func destroyAll() {
    for entry in boxes { entry.slot.destroy(entry.box, kind: entry.kind) }
    boxes.removeAll()
  }
}

/// A box taken out of a slot's cell, kept until no reader's hazard pointer
/// holds it.
struct RetiredBox {
  let slot: AnySlot
  let box: UnsafeMutableRawPointer
  let kind: AnySlot.BoxKind

  /// Destroys the boxes a reclaim freed; call without the store's lock.
  static func destroy(_ boxes: [RetiredBox]) {
    for entry in boxes { entry.slot.destroy(entry.box, kind: entry.kind) }
  }
}

/// The read counters and hazard pointers of every live thread that has
/// resolved something.
///
/// A thread adds its record when its engine state is created and removes it
/// when the thread ends (the pthread key's destructor), under the same lock
/// a reclaim scans with, so a scan never reads a freed record.
package enum ThreadRecords {
  /// The records, by address of each thread's read counter
  /// (``ThreadFastState/recordOffset``), which the hazard pointers follow.
  private final class Registry: @unchecked Sendable {
    // @unchecked: `records` and `states` are only touched inside
    // `lock.withLock`; the words they point at are read with atomic loads,
    // and the states' gate mirrors written with atomic stores.
    let lock = ConditionLock()
    var records: [UnsafeMutablePointer<UInt>] = []
    /// Each record's thread state, at the same index, whose gate mirror
    /// ``moveScopeGate(by:)`` writes.
    var states: [UnsafeMutableRawPointer] = []
  }

  private static let registry = Registry()

  /// Adds the record and state of a thread whose state was just made; its
  /// gate mirror starts as the gate is.
  static func add(_ record: UnsafeMutablePointer<UInt>, state: UnsafeMutablePointer<ThreadFastState>) {
    registry.lock.withLock {
      registry.records.append(record)
      registry.states.append(UnsafeMutableRawPointer(state))
      forge_set_scope_gate_mirror(state, Gates.activeOverrideScopes.value != 0)
    }
  }

  static func remove(_ record: UnsafeMutablePointer<UInt>) {
    registry.lock.withLock {
      guard let index = registry.records.firstIndex(of: record) else { return }
      registry.records.swapAt(index, registry.records.count - 1)
      registry.states.swapAt(index, registry.states.count - 1)
      registry.records.removeLast()
      registry.states.removeLast()
    }
  }

  /// Adds `delta` to ``Gates/activeOverrideScopes`` and, when the gate goes
  /// up from 0 or down to it, mirrors that into every live thread's state
  /// (``ThreadFastState/scopeGateMirror``), under the lock that adds and
  /// removes states: a state made meanwhile starts as the gate is, and no
  /// write reaches a state whose thread has ended.
  ///
  /// A task that raises the gate does so before it runs anything that
  /// reads it, so its own threads' mirrors are set by then; a task it
  /// starts afterwards is enqueued after the writes, and the thread that
  /// runs it sees them.
  ///
  /// ```swift
  /// ThreadRecords.moveScopeGate(by: 1)   // a scope starts
  /// ThreadRecords.moveScopeGate(by: -1)  // and ends
  /// ```
  package static func moveScopeGate(by delta: Int) {
    registry.lock.withLock {
      // Every change of the gate comes here, under this lock: the value
      // before the addition is the one the mirrors show.
      let now = Gates.activeOverrideScopes.add(delta)
      guard (now != 0) != (now &- delta != 0) else { return }
      for state in registry.states { forge_set_scope_gate_mirror(state, now != 0) }
    }
  }

  /// How many threads have a record now; for tests.
  package static var count: Int { registry.lock.withLock { registry.records.count } }

  /// Waits until every read section open now (a thread's counter odd)
  /// has ended; false, without waiting, when that cannot be known (see
  /// ``heldBoxes()``). A section that starts afterwards loads what the
  /// caller published before the call. Call with no section of the
  /// calling thread's own open.
  ///
  /// ```swift
  /// if ThreadRecords.waitForOpenReadSections() { table.freeReplaced() }
  /// ```
  package static func waitForOpenReadSections() -> Bool {
    guard forge_heavy_fence() != 0 else { return false }
    let own = ResolutionContext.currentFastIfMade?.reads
    registry.lock.withLock {
      let reading = registry.records.compactMap { record in
        let count = forge_load_acquire_word(record)
        return count & 1 != 0 ? (record, count) : nil
      }
      waitUntilEnded(reading, own: own)
    }
    return true
  }

  /// Waits until each of `reading`'s counters moves on from the odd count
  /// it had: a section is a few instructions that need no lock (the
  /// registry's lock, held by the caller, only keeps the record alive), so
  /// the wait ends once its thread runs.
  private static func waitUntilEnded(
    _ reading: [(record: UnsafeMutablePointer<UInt>, count: UInt)],
    own: UnsafeMutablePointer<UInt>?
  ) {
    for (record, count) in reading {
      precondition(record != own, "Forge: a store reclaimed while its own thread was reading")
      var spins = 0
      while forge_load_acquire_word(record) == count {
        spins += 1
        if spins > 64 { forge_yield() }
      }
    }
  }

  /// Every box some live thread's hazard pointer holds now, once every
  /// thread that was inside a read has left it; nil when that cannot be
  /// known (x86_64 Linux where the kernel refuses both of the reclaimer's
  /// fences: see forge_heavy_fence). Call after taking the boxes out of
  /// their cells.
  package static func heldBoxes() -> Set<UnsafeMutableRawPointer>? {
    // On x86_64 Linux a reader stores its counter and hazard pointers
    // without a fence of its own (see forge_hazard_publish): this one makes
    // every such store visible to the scan, or makes the reader see the
    // cell's new value.
    guard forge_heavy_fence() != 0 else { return nil }
    let own = ResolutionContext.currentFastIfMade?.reads
    return registry.lock.withLock {
      var held: Set<UnsafeMutableRawPointer> = []
      var reading: [(record: UnsafeMutablePointer<UInt>, count: UInt)] = []
      for record in registry.records {
        let count = forge_load_acquire_word(record)
        if count & 1 != 0 { reading.append((record, count)) }
        let hazards = ThreadFastState.hazards(after: record)
        for index in 0..<ThreadFastState.hazardCount {
          if let box = forge_load_seq_cst(hazards + index) { held.insert(box) }
        }
      }
      // A thread inside a read may hold any box it loaded before the
      // boxes left their cells; a read that starts after the fence finds
      // them gone.
      waitUntilEnded(reading, own: own)
      return held
    }
  }
}

/// A published instance being read (`beginRead(_:)` on the thread's state).
@usableFromInline package struct PublishedRead {
  /// The instance's address.
  @usableFromInline package let box: UnsafeMutableRawPointer
  /// The read counter of the reading thread (``ThreadFastState/recordOffset``).
  @usableFromInline let reads: UnsafeMutablePointer<UInt>

  /// A read started with the counter `reads` (`beginRead(_:)` on the thread's state).
  @inlinable
  init(box: UnsafeMutableRawPointer, reads: UnsafeMutablePointer<UInt>) {
    self.box = box
    self.reads = reads
  }

  /// Lets go of the instance; call once it is copied out.
  @inlinable
  package func end() { forge_read_exit(reads) }

  /// Copies the instance out as `T` (the slot's type) and lets go of it.
  @inlinable @inline(__always)
  package func take<T>(_ type: T.Type) -> T {
    defer { end() }
    return box.assumingMemoryBound(to: T.self).pointee
  }

  /// Lends `body` the object that the instance (a `T`) holds in `field`,
  /// without copying it out (a retain and a release): the read keeps the
  /// instance, and so the object, while `body` runs. Does not end the read.
  ///
  /// ```swift
  /// let value = read.withBorrowed(\AsyncDependency<V>.build) { $0.publishedValue() }
  /// ```
  @inlinable @inline(__always)
  package func withBorrowed<T, Object: AnyObject, Result>(
    _ field: KeyPath<T, Object>,
    _ body: (Object) -> Result
  ) -> Result {
    let offset = MemoryLayout<T>.offset(of: field).unsafelyUnwrapped
    return UnsafeRawPointer(box).load(fromByteOffset: offset, as: Unmanaged<Object>.self)
      ._withUnsafeGuaranteedRef(body)
  }
}

/// Which fence orders a reader's hazard pointer before a reclaimer's scan
/// (see `forge_hazard_publish` and `forge_heavy_fence`), decided once per
/// process. For tests and diagnostics.
package enum HazardFences {
  package enum Kind: Equatable {
    /// Readers store their hazard pointers sequentially consistent; the
    /// reclaimer needs only its own fence (every platform but x86_64 Linux).
    case readers
    /// x86_64 Linux: `membarrier`.
    case membarrier
    /// x86_64 Linux where the kernel refuses `membarrier`: a page's
    /// protection taken away, which interrupts every processor.
    case pageProtection
    /// x86_64 Linux where both are refused: retired boxes are kept.
    case none
  }

  /// The fence this process uses.
  package static var kind: Kind {
    switch forge_heavy_fence_kind() {
    case 0: .readers
    case 1: .membarrier
    case 2: .pageProtection
    default: .none
    }
  }

  /// Makes this process use the page's protection where it would use
  /// `membarrier`, so that a test runs the fallback; only before anything
  /// has read lock-free (a process of its own). Whether it now does.
  package static func usePageProtectionForTesting() -> Bool { forge_fences_use_page_for_testing() != 0 }

  /// Runs the reclaimer's fence once; false when there is none.
  package static func fenceEveryThread() -> Bool { forge_heavy_fence() != 0 }
}
