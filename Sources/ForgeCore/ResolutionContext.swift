import CForgeAtomics

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// The chain of slots one thread is building right now.
///
/// Factories are synchronous, so a resolution and every nested resolution it
/// triggers run on one thread: the chain belongs to that thread, and no other
/// thread ever reads or writes it. The engine uses the chain to find cycles
/// (the same slot twice in the chain) and to report the path that led to a
/// failure.
@usableFromInline package final class ResolutionContext {
  /// What a finished build reports about itself.
  package struct Outcome {
    /// The depth of the innermost override scope the build used; 0 for none.
    package let scopeDepth: Int
    package let dependencies: [AnySlot]
  }

  /// The dependencies that recording builds in progress have resolved so
  /// far, each build's after its outer builds': a frame's start to the next
  /// recording frame's start. Only the owning thread touches it, so the
  /// dynamic exclusivity checks would only cost time.
  @exclusivity(unchecked) private var recorded: [AnySlot] = []

  /// The part of this thread's state that lock-free reads touch, in raw
  /// memory so that reading it retains nothing.
  package let fast: UnsafeMutablePointer<ThreadFastState>

  /// This thread's record (``ThreadFastState/recordOffset``): its read counter and
  /// hazard pointers. Stores this thread reads from without a lock scan it
  /// before they release a box, so a box is never released while a reader
  /// holds it. A copy of the fast state's pointer, so that other threads
  /// never read the fast state itself while its thread changes it.
  package let record: UnsafeMutablePointer<UInt>

  private init() {
    fast = ThreadFastState.allocate()
    record = fast.reads
    ThreadRecords.add(record, state: fast)
  }

  deinit {
    // The thread is ending: no reclaim may scan its record any more.
    ThreadRecords.remove(record)
    ThreadFastState.free(fast)
  }

  /// Set while a dialect reads a property only to learn which slot key it
  /// resolves (see Forge's key-path overrides).
  @exclusivity(unchecked) package var keyCapture: KeyCapture? {
    didSet { fast.pointee.isCapturing = keyCapture != nil || threadValidation != nil }
  }

  /// How an observed resolution in progress was served, by slot (see
  /// `SlotStore.resolveObserved`).
  package enum Served { case built, override, preview }
  @exclusivity(unchecked) var served: (slot: ObjectIdentifier, how: Served)?

  /// Set while this thread validates a container (``Validation``): every
  /// resolution takes the locked path, and kept instances stay in the
  /// session instead of the container.
  @exclusivity(unchecked) package var threadValidation: ValidationSession? {
    didSet { fast.pointee.isCapturing = keyCapture != nil || threadValidation != nil }
  }

  /// Set on the thread of a ``ValidationExecutor``: a synchronous failure
  /// of a validation's task there parks the thread, as on a thread that
  /// validates (``threadValidation``).
  @exclusivity(unchecked) package var parksForTaskValidation = false

  /// The validation the resolutions of this thread belong to now: the
  /// thread's own (``threadValidation``), or, while an asynchronous
  /// validation runs anywhere, the one of the current task while it lasts
  /// (whose resolutions the raised override gate already sends to the
  /// locked path).
  package var validation: ValidationSession? {
    if let threadValidation { return threadValidation }
    return Gates.asyncValidations.value > 0 ? ValidationSession.activeTaskSession : nil
  }

  /// The calling thread's state in raw memory, created on first use and
  /// released with the thread. What the lock-free path starts from.
  @inlinable
  package static var currentFast: UnsafeMutablePointer<ThreadFastState> {
    let raw = forge_thread_state_for_read()
    if forge_thread_state_is_made(raw) {
      return raw.assumingMemoryBound(to: ThreadFastState.self)
    }
    return makeCurrentFast()
  }

  /// The calling thread's state when a lock-free read may serve it now:
  /// it has a state, is not capturing, and its innermost build, if any,
  /// records nothing. One thread-local load and one byte's test: a thread
  /// without a state reads the placeholder's set byte
  /// (``ThreadFastState/skipsFastReads``).
  ///
  /// ```swift
  /// guard let thread = ResolutionContext.fastReader else { return general() }
  /// ```
  @inlinable @inline(__always)
  package static var fastReader: UnsafeMutablePointer<ThreadFastState>? {
    let raw = forge_thread_state_for_read()
    guard !raw.load(as: Bool.self) else { return nil }
    return raw.assumingMemoryBound(to: ThreadFastState.self)
  }

  /// ``fastReader`` when nothing ``Gates/isClearForThisTask`` rules out
  /// applies either: the start of every hit. The thread's flag and the
  /// scope gate, as the gate's changes mirror it into the thread's state
  /// (``ThreadFastState/scopeGateMirror``), are read in one load and
  /// tested once; only a raised gate asks, out of line, whether it
  /// concerns this task.
  ///
  /// ```swift
  /// guard let thread = ResolutionContext.clearFastReader else { return general() }
  /// ```
  @inlinable @inline(__always)
  package static var clearFastReader: UnsafeMutablePointer<ThreadFastState>? {
    let raw = forge_thread_state_for_read()
    // Tested where it is loaded: kept for the second question, the load
    // and the test would be two instructions.
    if forge_fast_read_flags(raw) != 0, !Gates.isClearPastRaisedGate(raw) { return nil }
    return raw.assumingMemoryBound(to: ThreadFastState.self)
  }

  /// The calling thread's engine state if it has one already: a
  /// thread-local read, no call.
  @inlinable @inline(__always)
  package static var currentFastIfMade: UnsafeMutablePointer<ThreadFastState>? {
    let raw = forge_thread_state_for_read()
    return forge_thread_state_is_made(raw) ? raw.assumingMemoryBound(to: ThreadFastState.self) : nil
  }

  /// Creates the calling thread's context; the pthread key's destructor
  /// releases it when the thread ends.
  @usableFromInline @inline(never)
  static func makeCurrentFast() -> UnsafeMutablePointer<ThreadFastState> {
    let context = ResolutionContext()
    context.fast.pointee.context = Unmanaged.passRetained(context)  // released by the key's destructor
    pthread_setspecific(contextKey, UnsafeMutableRawPointer(context.fast))
    forge_set_thread_state(UnsafeMutableRawPointer(context.fast))
    return context.fast
  }

  /// The context of the calling thread, created on first use and released
  /// with the thread.
  @inline(__always)
  package static var current: ResolutionContext {
    currentFast.pointee.owner
  }

  /// The context of the calling thread if it has one already; never allocates.
  @inline(__always)
  package static var currentIfPresent: ResolutionContext? {
    currentFastIfMade?.pointee.owner
  }

  /// The slots under construction, outermost first. Retained copies, for a
  /// record another thread may read.
  package var buildingSlots: [AnySlot] {
    let state = fast.pointee
    return (0..<state.buildDepth).map { state[frame: $0].slot.takeUnretainedValue() }
  }

  /// Names of the slots under construction, outermost first.
  package var chain: [String] { buildingSlots.map(\.name) }

  /// The cycle that building `slot` now would close, if any: the path from
  /// the slot's first appearance in the chain back to the slot itself.
  @usableFromInline
  package func cycle(closedBy slot: AnySlot) -> [String]? {
    guard let start = fast.pointee.firstFrame(building: .passUnretained(slot)) else { return nil }
    return buildingSlots[start...].map(\.name) + [slot.name]
  }

  /// Starts a build of `slot` on this thread that records the dependencies
  /// it resolves. The caller holds `slot` until the matching ``pop()``.
  /// (A build that records nothing pushes its frame on ``fast`` directly.)
  @inline(__always)
  package func push(_ slot: AnySlot) {
    fast.pointee.push(.passUnretained(slot), recordingFrom: recorded.count)
  }

  /// Runs `build` as a build of `slot` on this thread that records what it
  /// resolves: ``push(_:)``, then ``pop()`` whether `build` returns or
  /// throws. Reports what the build used with its value. The caller holds
  /// `slot` until this returns.
  @inline(__always)
  package func recording<V>(_ slot: AnySlot, _ build: () throws -> V) throws -> (value: V, outcome: Outcome) {
    push(slot)
    let value: V
    do {
      value = try build()
    } catch {
      pop()
      throw error
    }
    return (value, pop())
  }

  /// Pops the innermost frame, pushed by ``push(_:)``, and reports what its
  /// build used.
  @discardableResult
  @inline(__always)
  package func pop() -> Outcome {
    let frame = fast.pointee.pop()
    let dependencies = Array(recorded[frame.dependenciesStart...])
    recorded.removeSubrange(frame.dependenciesStart...)
    return Outcome(scopeDepth: frame.scopeDepth, dependencies: dependencies)
  }

  /// Notes that the build in progress, if any, depends on `slot`: the
  /// innermost one on this thread, or else the async build whose factory
  /// the current task runs.
  @usableFromInline
  package func recordDependency(_ slot: AnySlot) {
    let depth = fast.pointee.buildDepth
    guard depth > 0 else {
      // The gate is raised while a recording async factory runs.
      if Gates.activeOverrideScopes.value != 0 { AsyncBuildNode.noteResolved(slot) }
      return
    }
    let frame = fast.pointee[frame: depth - 1]
    guard frame.recordsDependencies else { return }
    if !recorded[frame.dependenciesStart...].contains(where: { $0 === slot }) {
      recorded.append(slot)
    }
  }

}

/// What a dialect is looking for while it reads a property in capture mode.
/// A class, so that "is this thread capturing?" is a pointer comparison.
package final class KeyCapture {
  /// The store whose key is wanted; resolutions in other stores run normally.
  package let store: ObjectIdentifier
  /// The property's value type; a resolution of another type is not it.
  package let valueType: ObjectIdentifier
  /// What is being overridden, for the message of a misdirected read.
  package let request: String
  /// Produces the value the property read must return, given the key it
  /// resolved.
  package let placeholder: (AnyHashable) -> Any
  /// Where the override was written, for the message of a misdirected read.
  package let location: CodeLocation?
  /// The key the property resolved, once seen.
  package var capturedKey: AnyHashable?

  package init(
    store: ObjectIdentifier,
    valueType: ObjectIdentifier,
    request: String,
    location: CodeLocation?,
    placeholder: @escaping (AnyHashable) -> Any
  ) {
    self.store = store
    self.valueType = valueType
    self.request = request
    self.location = location
    self.placeholder = placeholder
  }
}

private let contextKey: pthread_key_t = {
  var key = pthread_key_t()
  // The destructor runs on the ending thread: a resolution from a later
  // thread-local destructor must not find the released state.
  #if canImport(Darwin)
    let status = pthread_key_create(&key) { raw in
      forge_set_thread_state(nil)
      raw.assumingMemoryBound(to: ThreadFastState.self).pointee.context?.release()
    }
  #else
    let status = pthread_key_create(&key) { raw in
      guard let raw else { return }
      forge_set_thread_state(nil)
      raw.assumingMemoryBound(to: ThreadFastState.self).pointee.context?.release()
    }
  #endif
  if status != 0 {
    let diagnostic = ForgeDiagnostic(
      .internalError, "pthread_key_create failed (\(status))",
      reason: "The process has run out of thread-specific keys.", fix: "create fewer of them elsewhere in the process.")
    fatalError("ForgeCore: \(diagnostic)")
  }
  return key
}()
