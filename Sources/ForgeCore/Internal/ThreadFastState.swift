import CForgeAtomics

/// What the lock-free read path needs of the calling thread: its hazard
/// pointer, its slot cache and two flags. Raw memory owned by the thread's
/// ``ResolutionContext``, reached through the thread-local without retaining
/// anything. Only the owning thread writes it; stores read `hazard`
/// atomically.
package struct ThreadFastState {
  /// The published box this thread is reading, if any.
  package let hazard: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  /// Slots this thread found before, by store and key bits.
  private let slotCache: UnsafeMutablePointer<SlotCacheEntry>
  private static let slotCacheSize = 64
  /// Set while the thread reads a property in key-capture mode.
  package var isCapturing = false
  /// How many builds are in progress on this thread: the number of frames.
  package private(set) var buildDepth = 0
  /// The builds in progress, outermost first, in raw memory so that pushing
  /// and popping one retains nothing and allocates only to grow.
  private var frames: UnsafeMutablePointer<BuildFrame>
  private var frameCapacity = 16
  /// The owning context; retained once for the thread-local.
  package var context: Unmanaged<ResolutionContext>?

  /// The owning context, which exists from the state's creation on.
  @inline(__always)
  package var owner: ResolutionContext { context!.takeUnretainedValue() }

  /// An entry of the slot cache: enough to read a published instance
  /// without touching the slot object.
  ///
  /// An entry is used only while its store is the one asking, and store
  /// identities are never reused, so an entry of a released store is never
  /// followed.
  package struct SlotCacheEntry {
    var store: UInt = 0
    var bits = SlotKeyBits(0, 0)
    package var valueType: ObjectIdentifier?
    package var cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    package var slot: Unmanaged<AnySlot>?
  }

  /// One build in progress. The slot is not retained: whoever pushes the
  /// frame holds the slot until it pops it.
  package struct BuildFrame {
    package let slot: Unmanaged<AnySlot>
    /// Set when this build used a closure-scoped override, directly or
    /// through anything it resolved; such an instance must not be stored in
    /// the container, where callers outside the override scope would see it.
    package var usedScopedOverride: Bool
    /// Whether this build records its dependencies, and where in its
    /// context's recorded list they start.
    package var recordsDependencies: Bool
    package var dependenciesStart: Int
  }

  init() {
    // Every read writes the hazard pointer twice: lines of its own.
    hazard = CacheLines.allocate(UnsafeMutableRawPointer?.self)
    hazard.initialize(to: nil)
    slotCache = CacheLines.allocate(SlotCacheEntry.self, count: Self.slotCacheSize)
    slotCache.initialize(repeating: SlotCacheEntry(), count: Self.slotCacheSize)
    frames = .allocate(capacity: frameCapacity)
  }

  func deallocate() {
    CacheLines.deallocate(hazard)
    slotCache.deinitialize(count: Self.slotCacheSize)
    CacheLines.deallocate(slotCache)
    frames.deallocate()  // BuildFrame is trivial: nothing to deinitialize
  }

  // MARK: Frames

  /// The frame at `index`, 0 being the outermost build.
  @inline(__always)
  package subscript(frame index: Int) -> BuildFrame {
    get { frames[index] }
    nonmutating set { frames[index] = newValue }
  }

  /// Whether a resolution now has nothing to record: no build is in
  /// progress, or the innermost one does not record its dependencies.
  @inline(__always)
  package var recordsNothing: Bool {
    buildDepth == 0 || !frames[buildDepth - 1].recordsDependencies
  }

  /// Whether `slot` is being built on this thread already.
  @inline(__always)
  package func firstFrame(building slot: AnySlot) -> Int? {
    let wanted = Unmanaged.passUnretained(slot).toOpaque()
    for index in 0..<buildDepth where frames[index].slot.toOpaque() == wanted { return index }
    return nil
  }

  /// Starts building `slot`, which the caller holds until the matching
  /// ``pop()``. A build that records its dependencies passes where they
  /// start in its context's list.
  @inline(__always)
  package mutating func push(_ slot: AnySlot, recordingFrom dependenciesStart: Int?) {
    if buildDepth == frameCapacity { growFrames() }
    (frames + buildDepth).initialize(
      to: BuildFrame(
        slot: .passUnretained(slot),
        usedScopedOverride: false,
        recordsDependencies: dependenciesStart != nil,
        dependenciesStart: dependenciesStart ?? 0
      )
    )
    buildDepth += 1
  }

  @inline(__always)
  package mutating func pop() -> BuildFrame {
    buildDepth -= 1
    return frames[buildDepth]
  }

  private mutating func growFrames() {
    let larger = UnsafeMutablePointer<BuildFrame>.allocate(capacity: frameCapacity * 2)
    larger.moveInitialize(from: frames, count: buildDepth)
    frames.deallocate()
    frames = larger
    frameCapacity *= 2
  }

  @inline(__always)
  private static func index(store: UInt, bits: SlotKeyBits) -> Int {
    let mixed = (bits.first &* 0x9E37_79B9_7F4A_7C15) ^ (bits.second &* 0xC2B2_AE3D_27D4_EB4F) ^ (store &* 0x1656_67B1_9E37_79F9)
    return Int(truncatingIfNeeded: mixed >> (UInt.bitWidth - 6))
  }

  /// The entry cached for `bits` in the store with identity `store`.
  @inline(__always)
  package func entry(store: UInt, bits: SlotKeyBits) -> SlotCacheEntry? {
    let entry = slotCache[Self.index(store: store, bits: bits)]
    guard entry.store == store, entry.bits == bits, entry.slot != nil else { return nil }
    return entry
  }

  /// Remembers `slot` for `bits` in `store`.
  func remember(_ slot: AnySlot, store: UInt, bits: SlotKeyBits) {
    slotCache[Self.index(store: store, bits: bits)] = SlotCacheEntry(
      store: store,
      bits: bits,
      valueType: slot.valueType,
      cell: slot.cell,
      slot: .passUnretained(slot)
    )
  }

  /// Takes hold of the box published in `cell`, under this thread's hazard
  /// pointer, until ``endRead()``. Nil when nothing is published.
  @inline(__always)
  package func beginRead(_ cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> UnsafeMutableRawPointer? {
    while let box = forge_load_acquire(cell) {
      forge_hazard_publish(hazard, box)
      if forge_load_seq_cst(cell) == box { return box }
      forge_store_release(hazard, nil)
    }
    return nil
  }

  /// Lets go of the box taken by ``beginRead(_:)``.
  @inline(__always)
  package func endRead() {
    forge_store_release(hazard, nil)
  }
}
