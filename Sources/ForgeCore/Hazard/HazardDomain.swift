import CForgeAtomics

/// Lock-free readers and deferred reclamation.
///
/// A reader takes a published box (an instance, an override, a
/// registration) under one of its thread's hazard pointers
/// (``ThreadFastState/beginRead(_:)``); a store that takes a box out of its
/// cell retires it here and destroys it only once no thread's hazard pointer
/// holds it.
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
    guard !boxes.isEmpty else { return [] }
    let held = ThreadRecords.heldBoxes()
    var free: [RetiredBox] = []
    boxes.removeAll { entry in
      if held.contains(entry.box) { return false }
      free.append(entry)
      return true
    }
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

/// The hazard pointers of every live thread that has resolved something.
///
/// A thread adds its record when its engine state is created and removes it
/// when the thread ends (the pthread key's destructor), under the same lock
/// a reclaim scans with, so a scan never reads a freed record.
package enum ThreadRecords {
  /// The records, by address of each thread's first hazard pointer.
  private final class Registry: @unchecked Sendable {
    // @unchecked: `records` is only touched inside `lock.withLock`; the
    // words it points at are read with atomic loads.
    let lock = ConditionLock()
    var records: [UnsafeMutablePointer<UnsafeMutableRawPointer?>] = []
  }

  private static let registry = Registry()

  static func add(_ hazard: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
    registry.lock.withLock { registry.records.append(hazard) }
  }

  static func remove(_ hazard: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
    registry.lock.withLock {
      if let index = registry.records.firstIndex(of: hazard) {
        registry.records.swapAt(index, registry.records.count - 1)
      }
      if registry.records.last == hazard { registry.records.removeLast() }
    }
  }

  /// How many threads have a record now; for tests.
  package static var count: Int { registry.lock.withLock { registry.records.count } }

  /// Every box some live thread's hazard pointer holds now.
  static func heldBoxes() -> Set<UnsafeMutableRawPointer> {
    // A reader publishes its hazard pointer without a fence of its own (see
    // forge_hazard_publish): this one makes every published pointer visible
    // to the scan, or makes the reader see the cell's new value.
    forge_heavy_fence()
    return registry.lock.withLock {
      var held: Set<UnsafeMutableRawPointer> = []
      for record in registry.records {
        for index in 0..<ThreadFastState.hazardCount {
          if let box = forge_load_seq_cst(record + index) { held.insert(box) }
        }
      }
      return held
    }
  }
}

/// A published instance being read under the thread's hazard pointer.
@usableFromInline package struct PublishedRead {
  /// The instance's address.
  @usableFromInline package let box: UnsafeMutableRawPointer
  @usableFromInline let thread: UnsafeMutablePointer<ThreadFastState>

  @inlinable
  init(box: UnsafeMutableRawPointer, thread: UnsafeMutablePointer<ThreadFastState>) {
    self.box = box
    self.thread = thread
  }

  /// Lets go of the instance; call once it is copied out.
  @inlinable
  package func end() { thread.pointee.endRead() }

  /// Copies the instance out as `T` (the slot's type) and lets go of it.
  @inlinable @inline(__always)
  package func take<T>(_ type: T.Type) -> T {
    defer { end() }
    return box.assumingMemoryBound(to: T.self).pointee
  }

  /// ``take(_:)`` in a function of its own, for a hit that ends with it:
  /// the hit then calls it last (a jump), and needs no frame of its own to
  /// keep the read across the copy's retain.
  @inlinable @inline(never)
  package func takeInFrameOfItsOwn<T>(_ type: T.Type) -> T { take(T.self) }

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
