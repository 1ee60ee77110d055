import CForgeAtomics

/// What the lock-free read path needs of the calling thread: its read
/// counter and hazard pointers, the frames of the builds in progress and a
/// flag. Raw memory owned by the thread's ``ResolutionContext``, reached
/// through a C thread-local without retaining anything. Only the owning
/// thread writes it; stores read the read counter and hazard pointers
/// atomically, through the context's copy of their address.
@usableFromInline package struct ThreadFastState {
  /// Whether no lock-free read may serve this thread now: it is capturing
  /// (``isCapturing``), or its innermost build records what it resolves
  /// (not ``recordsNothing``). One byte, so that a hit tests one flag where
  /// it tested two and a depth; the first stored property, at offset 0,
  /// where the placeholder a thread without state reads has its byte set
  /// (`forge_unmade_thread_state`; see ``ResolutionContext/fastReader``).
  @usableFromInline package private(set) var skipsFastReads = false
  /// Whether ``Gates/activeOverrideScopes`` is raised, as the gate's
  /// changes mirror it into every thread's state (``ThreadRecords``), at
  /// offset 1: a hit reads this byte and ``skipsFastReads`` in one load
  /// (`forge_fast_read_flags`) where it read the gate's word and then this
  /// state. Written only by `forge_set_scope_gate_mirror`, from any thread.
  @usableFromInline package private(set) var scopeGateMirror = false
  /// Builds deep enough for an override read at each depth to have a
  /// hazard pointer of its own, which it may hold while the override's
  /// factory runs.
  @usableFromInline package static var heldOverrideDepths: Int { 8 }
  /// Override boxes a thread may hold at once: one per build depth below
  /// ``heldOverrideDepths``, and one for momentary reads deeper than that.
  package static let hazardCount = 1 + heldOverrideDepths

  /// The hazard pointers of the record that starts at `reads`.
  @inlinable
  static func hazards(after reads: UnsafeMutablePointer<UInt>) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    UnsafeMutableRawPointer(reads + 1).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  }

  /// Whether the override hazard pointer (``overrideHazard`` on the
  /// state's pointer) may stay held across a build: no deeper resolution
  /// uses it.
  @inlinable
  package var holdsOverrideAcrossBuild: Bool { buildDepth < Self.heldOverrideDepths }
  /// Set while the thread reads a property in key-capture mode or
  /// validates a container: either way no lock-free shortcut applies.
  @usableFromInline package var isCapturing = false {
    didSet { skipsFastReads = isCapturing || !recordsNothing }
  }
  /// How many builds are in progress on this thread: the number of frames.
  @usableFromInline package internal(set) var buildDepth = 0
  /// The builds in progress, outermost first, in raw memory so that pushing
  /// and popping one retains nothing and allocates only to grow.
  @usableFromInline var frames: UnsafeMutablePointer<BuildFrame>
  @usableFromInline var frameCapacity = 16
  /// The owning context; retained once for the thread-local.
  @usableFromInline package var context: Unmanaged<ResolutionContext>?

  /// The owning context, which exists from the state's creation on.
  @inlinable
  package var owner: ResolutionContext { context!.takeUnretainedValue() }

  /// One build in progress. The slot is not retained: whoever pushes the
  /// frame holds the slot until it pops it.
  @usableFromInline package struct BuildFrame {
    @usableFromInline package let slot: Unmanaged<AnySlot>
    /// The depth of the innermost override scope this build used, directly
    /// or through anything it resolved (0: none); such an instance is kept
    /// in that scope, never in the container, where callers outside the
    /// scope would see it.
    @usableFromInline package var scopeDepth: Int
    /// Whether this build records its dependencies, and where in its
    /// context's recorded list they start.
    @usableFromInline package var recordsDependencies: Bool
    /// The thread's ``skipsFastReads`` before this frame was pushed, which
    /// its pop puts back (in the padding after the flag above).
    @usableFromInline var skippedFastReads: Bool
    @usableFromInline package var dependenciesStart: Int

    @inlinable
    init(
      slot: Unmanaged<AnySlot>, scopeDepth: Int, recordsDependencies: Bool, skippedFastReads: Bool,
      dependenciesStart: Int
    ) {
      self.slot = slot
      self.scopeDepth = scopeDepth
      self.recordsDependencies = recordsDependencies
      self.skippedFastReads = skippedFastReads
      self.dependenciesStart = dependenciesStart
    }
  }

  /// Where a state's record starts, from the state's own address: the span
  /// after the state's, in the same allocation (``allocate()``), so that a
  /// read finds its counter without loading its address. The record is
  /// what reclaimers scan (``ThreadRecords``): a read counter, odd while
  /// the thread reads a published instance (`beginRead(_:)` on the state's
  /// pointer), then ``hazardCount`` hazard pointers for override boxes
  /// (`overrideHazard`). Lines of their own: every read writes the counter
  /// twice.
  @usableFromInline static var recordOffset: Int { 128 }

  /// A state and its record in one allocation of two spans, the record in
  /// the second (see ``recordOffset``); free it with ``free(_:)``.
  static func allocate() -> UnsafeMutablePointer<ThreadFastState> {
    precondition(recordOffset == CacheLines.span && MemoryLayout<ThreadFastState>.stride <= recordOffset)
    let words = (recordOffset + (1 + hazardCount) * MemoryLayout<UInt>.stride) / MemoryLayout<UInt>.stride
    let raw = UnsafeMutableRawPointer(CacheLines.allocate(UInt.self, count: words))
    let state = raw.bindMemory(to: ThreadFastState.self, capacity: 1)
    state.initialize(to: ThreadFastState())
    // The counter, then the hazard pointers: one word each.
    (raw + recordOffset).bindMemory(to: UInt.self, capacity: 1 + hazardCount)
    state.reads.initialize(to: 0)
    state.hazard.initialize(repeating: nil, count: hazardCount)
    return state
  }

  /// Frees a state from ``allocate()`` and what it holds.
  static func free(_ state: UnsafeMutablePointer<ThreadFastState>) {
    state.pointee.frames.deallocate()  // BuildFrame is trivial: nothing to deinitialize
    state.deinitialize(count: 1)
    CacheLines.deallocate(state)
  }

  private init() {
    // The placeholder's set byte stands for this one (see skipsFastReads).
    precondition(MemoryLayout<ThreadFastState>.offset(of: \.skipsFastReads) == 0)
    // The gate's mirror next to it, so that one half-word load reads both.
    precondition(MemoryLayout<ThreadFastState>.offset(of: \.scopeGateMirror) == 1)
    frames = .allocate(capacity: frameCapacity)
  }

  // MARK: Frames

  /// The frame at `index`, 0 being the outermost build.
  @inlinable
  package subscript(frame index: Int) -> BuildFrame {
    get { frames[index] }
    nonmutating set { frames[index] = newValue }
  }

  /// Marks every build in progress as depending on the override scope at
  /// `depth` (1 for an outermost scope).
  package func markScopeUsed(depth: Int) {
    for index in 0..<buildDepth where frames[index].scopeDepth < depth { frames[index].scopeDepth = depth }
  }

  /// Whether a resolution now has nothing to record: no build is in
  /// progress, or the innermost one does not record its dependencies.
  @inlinable
  package var recordsNothing: Bool {
    // Wrapping arithmetic here and below: `buildDepth` is never negative
    // (each pop follows its push) and is far below `Int.max`, and an
    // overflow check is a branch on every hit.
    buildDepth == 0 || !frames[buildDepth &- 1].recordsDependencies
  }

  /// Whether the slot `slot` refers to is being built on this thread already.
  @inlinable
  package func firstFrame(building slot: Unmanaged<AnySlot>) -> Int? {
    let wanted = slot.toOpaque()
    var index = 0
    while index < buildDepth {
      if frames[index].slot.toOpaque() == wanted { return index }
      index &+= 1
    }
    return nil
  }

  /// Starts building `slot`, which the caller holds until the matching
  /// ``pop()`` (a store holds its slots as long as it lives). A build that
  /// records its dependencies passes where they start in its context's
  /// list.
  @inlinable
  package mutating func push(_ slot: Unmanaged<AnySlot>, recordingFrom dependenciesStart: Int?) {
    if buildDepth == frameCapacity { growFrames() }
    (frames + buildDepth).initialize(
      to: BuildFrame(
        slot: slot,
        scopeDepth: 0,
        recordsDependencies: dependenciesStart != nil,
        skippedFastReads: skipsFastReads,
        dependenciesStart: dependenciesStart ?? 0
      )
    )
    buildDepth &+= 1
    skipsFastReads = dependenciesStart != nil || isCapturing
  }

  @inlinable
  package mutating func pop() -> BuildFrame {
    buildDepth &-= 1
    let frame = frames[buildDepth]
    // A capture starts and ends inside the builds around it, so what held
    // before the push holds again.
    skipsFastReads = frame.skippedFastReads
    return frame
  }

  @usableFromInline
  mutating func growFrames() {
    let larger = UnsafeMutablePointer<BuildFrame>.allocate(capacity: frameCapacity * 2)
    larger.moveInitialize(from: frames, count: buildDepth)
    frames.deallocate()
    frames = larger
    frameCapacity *= 2
  }

  /// Takes hold of the box published in `cell` under one of this thread's
  /// override hazard pointers (``overrideHazard``), which a build may keep
  /// while it runs; ``endHeldRead(hazard:)`` lets go.
  @inlinable
  package func beginHeldRead(
    _ cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    hazard pointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> UnsafeMutableRawPointer? {
    while let box = forge_load_acquire(cell) {
      forge_hazard_publish(pointer, box)
      if forge_load_seq_cst(cell) == box { return box }
      forge_hazard_clear(pointer)
    }
    return nil
  }

  /// Lets go of the box taken under `pointer`.
  @inlinable
  package func endHeldRead(hazard pointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
    forge_hazard_clear(pointer)
  }
}

extension UnsafeMutablePointer where Pointee == ThreadFastState {
  /// The thread's read counter: the first word of its record, at
  /// ``ThreadFastState/recordOffset`` from the state.
  @inlinable
  package var reads: UnsafeMutablePointer<UInt> {
    (UnsafeMutableRawPointer(self) + ThreadFastState.recordOffset).assumingMemoryBound(to: UInt.self)
  }

  /// The override hazard pointers, after the counter in the record.
  @inlinable
  package var hazard: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    ThreadFastState.hazards(after: reads)
  }

  /// The hazard pointer for a container-wide override's box read at the
  /// current build depth. At a depth below
  /// ``ThreadFastState/heldOverrideDepths`` it is that depth's own
  /// (``ThreadFastState/holdsOverrideAcrossBuild``), so the override may
  /// stay held while its factory runs and resolves deeper; deeper, it is
  /// shared, for momentary reads only.
  @inlinable
  package var overrideHazard: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    hazard + Swift.min(pointee.buildDepth, ThreadFastState.heldOverrideDepths)
  }

  /// Takes hold of the box published in `cell` until the read's
  /// ``PublishedRead/end()`` (or ``PublishedRead/take(_:)``): the thread's
  /// read counter is odd meanwhile, and no reclaimer frees a box while a
  /// thread that may have loaded it is inside its read. Nil when nothing
  /// is published.
  ///
  /// ```swift
  /// if let read = thread.beginRead(slot.cell) { return read.take(T.self) }
  /// ```
  ///
  /// A read only copies the instance out: it takes no lock, runs no code of
  /// the user's and starts no other read, so a reclaimer waiting for it to
  /// end waits for a few instructions of a thread that needs nothing from
  /// anyone.
  @inlinable
  package func beginRead(_ cell: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> PublishedRead? {
    // The counter's address from the state's: the record follows it in
    // its allocation (ThreadFastState.recordOffset), so no load.
    let reads = self.reads
    guard let box = forge_read_begin(reads, cell) else { return nil }
    return PublishedRead(box: box, reads: reads)
  }
}
