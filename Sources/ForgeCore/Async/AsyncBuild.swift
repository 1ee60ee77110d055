import CForgeAtomics

/// One async dependency's builds: at most one runs at a time, and every task
/// that asks while it runs awaits that one build without blocking a thread.
///
/// The build runs in a task of its own, so that a waiter's cancellation ends
/// only that waiter's wait:
/// - cancelling a waiter makes it throw `CancellationError` at once; the
///   build goes on for the others and its instance is kept;
/// - cancelling the last waiter cancels the build too: a factory that checks
///   for cancellation can stop early (nothing is kept, the next resolution
///   builds again), one that finishes anyway is kept.
///
/// A build that throws keeps nothing: every waiter receives the error and the
/// next resolution builds again. A build that awaits, directly or through
/// other async builds on any task, the dependency it is building throws
/// ``DependencyCycleError`` with the path instead of waiting for itself.
///
/// A build made for a slot's handle reports to that slot: what its factory
/// resolves, on whichever threads it runs, becomes the slot's recorded
/// dependencies when it ends (the graph's edges, and what override scopes
/// read to tell whether they reach it), and its start and end are told to
/// the store's observers as a resolution of its own.
@usableFromInline package final class AsyncBuild<Value: Sendable>: AsyncBuildNode, @unchecked Sendable {
  // @unchecked: `state` and every waiter are only touched while `lock` is
  // held; `factory`, `name`, `identity` and `holdsWeakly` are immutable;
  // `publishedCell` is written once, with release, and read with acquire.
  /// The factory, when the build keeps one; a handle may supply its own on
  /// each read instead (Forge's, whose factories capture the container).
  private let factory: (@Sendable () async throws -> Value)?
  private let holdsWeakly: Bool
  /// Where the build reports what it resolved and how it went.
  private let reporting: AsyncBuildReporting
  private let lock = ConditionLock()
  private var state = State.idle
  /// The kept instance, boxed, once a build keeps one for good (not a weak
  /// one): what a hit reads without the lock. Set once, never cleared; a
  /// reset drops the whole handle instead.
  @usableFromInline let publishedCell: UnsafeMutablePointer<UnsafeMutableRawPointer?>

  @usableFromInline final class Published {
    @usableFromInline let value: Value
    init(_ value: Value) { self.value = value }
  }
  /// When the finished build's instance was kept, in the process-wide order
  /// of kept instances: dependents are kept after their dependencies.
  private var keptSequence = 0

  // The tasks waiting for the build in progress. A waiter is admitted under
  // the lock, then registers its continuation; the build may end, or the
  // waiter be cancelled, in between.
  /// Admitted waiters, not yet answered.
  private var admitted: Set<Int> = []
  /// The registered continuations of admitted waiters, each an
  /// `UnsafeContinuation<Value, any Error>` as its one word (``erased(_:)``).
  /// This class's methods are not specialised, so every operation on a
  /// collection whose type mentions `Value` looks up that type's metadata:
  /// a dictionary of continuations cost about 2,400 instructions per
  /// waiter's insertion. Collections of concrete types need none.
  private var waiters: [Int: UnsafeRawPointer] = [:]
  /// Admitted waiters answered before they registered, whose answers
  /// `answers` holds (rare: only these touch it).
  private var answeredEarly: Set<Int> = []
  private var answers = [Int: Result<Value, any Error>]()  // not `[:]`: see SlotStore.slots
  private var nextWaiter = 0

  /// The slot whose handle this build belongs to, if any: a validation's
  /// failure inside the build names it in its chain.
  override var reportedSlot: AnySlot? { reporting.slot }

  /// A continuation as the word it is: its layout does not depend on
  /// `Value`, so this is a move, with no metadata.
  private static func erased(_ continuation: UnsafeContinuation<Value, any Error>) -> UnsafeRawPointer {
    unsafeBitCast(continuation, to: UnsafeRawPointer.self)
  }

  private static func continuation(_ erased: UnsafeRawPointer) -> UnsafeContinuation<Value, any Error> {
    unsafeBitCast(erased, to: UnsafeContinuation<Value, any Error>.self)
  }

  private enum State {
    case idle
    case building(Flight)
    case built(Value)
    case builtWeakly(WeakBox)
  }

  /// The build in progress.
  private final class Flight: @unchecked Sendable {
    // @unchecked: only touched while the build's lock is held.
    var task: Task<Void, Never>?
    /// What builds, kept for a rebuild after the flight is abandoned.
    let factory: @Sendable () async throws -> Value
    init(factory: @escaping @Sendable () async throws -> Value) { self.factory = factory }
    /// Whether its last waiter was cancelled, which cancelled its task.
    var isAbandoned = false
  }

  private final class WeakBox {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
  }

  /// - Parameters:
  ///   - holdsWeakly: keep a class instance only while someone else holds
  ///     it (a weak lifetime); other values are built every time.
  ///   - reporting: the slot to record the factory's resolutions in, and the
  ///     store whose observers hear of the build.
  package init(
    name: String,
    identity: AnyHashable,
    holdsWeakly: Bool = false,
    reporting: AsyncBuildReporting = AsyncBuildReporting(),
    factory: (@Sendable () async throws -> Value)?
  ) {
    self.factory = factory
    self.holdsWeakly = holdsWeakly
    self.reporting = reporting
    publishedCell = .allocate(capacity: 1)
    publishedCell.initialize(to: nil)
    super.init(name: name, identity: identity)
  }

  deinit {
    if let published = publishedCell.pointee { Unmanaged<Published>.fromOpaque(published).release() }
    publishedCell.deallocate()
  }

  /// The kept instance, without the lock, once a build kept it for good.
  @inlinable
  package func publishedValue() -> Value? {
    publishedBox()?._withUnsafeGuaranteedRef { $0.value }
  }

  /// The box of the kept instance, once a build kept it for good;
  /// unretained: the cell keeps it until this build goes.
  @inlinable
  func publishedBox() -> Unmanaged<Published>? {
    forge_load_acquire(publishedCell).map { Unmanaged<Published>.fromOpaque($0) }
  }

  /// Builds for override scopes, by scope; guarded by `lock`.
  private var scoped: [ObjectIdentifier: ScopedBuild] = [:]

  private struct ScopedBuild {
    weak var scope: OverrideScope?
    let build: AsyncBuild<Value>
  }

  /// The build that serves a task in `scope`: this one, or the one kept
  /// for the scope that ``OverrideScope/keeper(ofRecorded:)`` names.
  package func build(in scope: OverrideScope) -> AsyncBuild<Value> {
    scope.keeper(ofRecorded: reporting.slot).map(keptBuild(for:)) ?? self
  }

  /// The build kept for `scope`, made on first use: a build of the same
  /// dependency with nothing kept yet, which records nothing in the slot
  /// (the container's build does), only edges for graphs while the slot
  /// has none (see ``AsyncBuildReporting``).
  package func keptBuild(for scope: OverrideScope) -> AsyncBuild<Value> {
    let id = ObjectIdentifier(scope)
    return lock.withLock {
      if let existing = scoped[id], existing.scope === scope { return existing.build }
      // Scopes that ended leave their builds behind: drop them now.
      scoped = scoped.filter { $0.value.scope != nil }
      let made = AsyncBuild(
        name: name, identity: identity, holdsWeakly: holdsWeakly, reporting: reporting.forScopeBuild, factory: factory)
      scoped[id] = ScopedBuild(scope: scope, build: made)
      return made
    }
  }

  /// The instance: the kept one, or the one the build in progress or a new
  /// build makes.
  ///
  /// - Parameter supplied: builds, when the build keeps no factory of its
  ///   own; one that does not await is wrapped as an async factory only if
  ///   a build starts.
  nonisolated(nonsending) func value(
    supplying supplied: AsyncDependency<Value>.Supplied?
  ) async throws -> Value {
    lock.lock()
    switch state {
    case .built(let value):
      lock.unlock()
      return value
    case .builtWeakly(let box):
      if let object = box.object {
        lock.unlock()
        return object as! Value
      }
      state = .idle
    case .idle, .building:
      break
    }
    let waiting = AsyncBuildNode.current
    if let cycle = chainCycle(from: waiting) {
      lock.unlock()
      throw DependencyCycleError(path: cycle)
    }
    if case .idle = state {
      // A factory the build keeps (an override's, a preview's, another
      // dialect's) wins over one a handle was handed out with.
      guard let factory = factory ?? supplied?.awaitable else {
        lock.unlock()
        fatalError("ForgeCore: \(ForgeDiagnostic.internalError("\(name) has no factory to build with"))")
      }
      let flight = Flight(factory: factory)
      state = .building(flight)
      flight.task = startBuild(chain: waiting, factory: factory)
    }
    // Builds on other tasks that this one would wait for in a circle; the
    // check and the wait's edge are one step, so two builds that await
    // each other at the same moment cannot both miss it.
    if let waiting, let cycle = AsyncWaits.begin(waiting.build, waitsFor: self) {
      lock.unlock()
      throw DependencyCycleError(path: cycle)
    }
    let waiter = nextWaiter
    nextWaiter += 1
    admitted.insert(waiter)
    lock.unlock()
    defer {
      if let waiting { AsyncWaits.end(waiting.build, waitsFor: self) }
      // The answer was settled under the lock (`finish` collects the
      // waiters while holding it); taking it once more makes that order
      // visible to ThreadSanitizer, which does not see a continuation's
      // resumption as synchronisation and would report the instance's
      // fields, written by the build's task, as raced.
      lock.lock()
      lock.unlock()
    }
    return try await withTaskCancellationHandler {
      // Unsafe: each continuation is resumed exactly once, by whoever
      // removes it from `waiters` under the lock (`finish`, `cancelWait`),
      // so the checked kind's extra allocation per waiter buys nothing.
      try await withUnsafeThrowingContinuation { continuation in
        // Nothing here has a type that mentions `Value` (see `waiters`).
        lock.lock()
        if answeredEarly.remove(waiter) != nil {
          lock.unlock()
          resumeEarlyAnswered(waiter, Self.erased(continuation))
        } else {
          waiters[waiter] = Self.erased(continuation)
          lock.unlock()
        }
      }
    } onCancel: {
      cancelWait(waiter)
    }
  }

  /// The path of the cycle when the current task's own chain of builds,
  /// `waiting` and the builds that awaited it, already builds this
  /// dependency (also as another instance, for a transient one).
  private func chainCycle(from waiting: AsyncBuildFrame?) -> [String]? {
    var chain: [String] = []
    var frame = waiting
    while let current = frame {
      chain.append(current.build.name)
      if current.build.identity == identity { return chain.reversed() + [name] }
      frame = current.parent
    }
    return nil
  }

  /// Starts a build in a task of its own. Call with the lock held.
  ///
  /// A validation's build prefers the validation's executor (a
  /// ``ValidationExecutor``), where a synchronous failure can be parked.
  /// Each branch starts its task with a closure of its own that calls
  /// ``runBuild(chain:frame:recorder:factory:)``: a helper taking
  /// the body as a closure cost every build two allocations more (the
  /// closure's context, and the thunk that made it a task's operation).
  private func startBuild(
    chain: AsyncBuildFrame?,
    factory: @escaping @Sendable () async throws -> Value
  ) -> Task<Void, Never> {
    let recorder = reporting.recordsNow ? AsyncDependencyRecorder() : nil
    let frame = AsyncBuildFrame(build: self, parent: chain, recorder: recorder)
    if let executor = ValidationSession.activeTaskSession?.executor,
      #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *),
      let executor = executor as? ValidationExecutor
    {
      return Task(executorPreference: executor) { [self] in
        await runBuild(chain: chain, frame: frame, recorder: recorder, factory: factory)
      }
    }
    return Task { [self] in
      await runBuild(chain: chain, frame: frame, recorder: recorder, factory: factory)
    }
  }

  /// The body of a build's task (see ``startBuild(chain:factory:)``).
  private func runBuild(
    chain: AsyncBuildFrame?,
    frame: AsyncBuildFrame,
    recorder: AsyncDependencyRecorder?,
    factory: @escaping @Sendable () async throws -> Value
  ) async {
    let tell = reporting.teller(for: name, chain: chain?.names ?? [])
    tell(.requested)
    let start = ContinuousClock.now
    // Raised while the factory runs, so that its synchronous resolutions
    // take the path that records them in `recorder`.
    if recorder != nil { ThreadRecords.moveScopeGate(by: Gates.taskBoundWeight) }
    // A validation's build belongs to it (it inherited the session),
    // while the run lasts.
    let validation = ValidationSession.activeTaskSession
    let result: Result<Value, any Error>
    do {
      result = .success(
        try await AsyncBuildNode.$currentFrame.withValue(frame) {
          // A slot's own build keeps its instance for the container: no
          // scope of the task that started it may serve what it reads.
          // (A scope's build runs in that scope, and so does a
          // validation's, which respects the overrides in force.)
          guard reporting.slot != nil, !reporting.forScope, validation == nil else { return try await factory() }
          return try await OverrideScope.awaitOutsideAnyScope { try await factory() }
        })
    } catch {
      result = .failure(error)
    }
    if let recorder {
      ThreadRecords.moveScopeGate(by: -Gates.taskBoundWeight)
      // Recorded before any waiter resumes: what awaited the instance
      // finds its edges.
      if case .success = result { reporting.keep(recorder.slots) }
      if let validation, let slot = reporting.slot, !reporting.forScope {
        if case .success = result {
          validation.noteBuild(slot, lifetime: reporting.lifetime, dependencies: recorder.slots)
        } else {
          validation.noteFailedAsyncBuild(of: slot)
        }
      }
    }
    let failure: (any Error)? = if case .failure(let error) = result { error } else { nil }
    tell(.ended(since: start, failure: failure))
    finish(with: result, chain: chain)
  }

  private func finish(with result: Result<Value, any Error>, chain: AsyncBuildFrame?) {
    let answered: [UnsafeRawPointer] = lock.withLock {
      guard case .building(let flight) = state else { return [] }
      if case .failure = result, flight.isAbandoned, !admitted.isEmpty {
        // Cancelled when nobody waited; tasks that came since still do.
        let next = Flight(factory: flight.factory)
        state = .building(next)
        next.task = startBuild(chain: chain, factory: flight.factory)
        return []
      }
      switch result {
      case .success(let value):
        keptSequence = StoredSequence.next.add(1)
        if holdsWeakly, type(of: value as Any) is AnyClass {
          state = .builtWeakly(WeakBox(value as AnyObject))
        } else if holdsWeakly {
          state = .idle
        } else {
          state = .built(value)
          forge_store_release(publishedCell, Unmanaged.passRetained(Published(value)).toOpaque())
        }
      case .failure:
        state = .idle
      }
      var answered: [UnsafeRawPointer] = []
      answered.reserveCapacity(admitted.count)
      for waiter in admitted {
        if let continuation = waiters.removeValue(forKey: waiter) {
          answered.append(continuation)
        } else {
          answeredEarly.insert(waiter)
          answers[waiter] = result
        }
      }
      admitted = []
      return answered
    }
    // Unwrapped once: `resume(with:)` looks up the metadata of
    // `Result<Value, any Error>` on every call.
    switch result {
    case .success(let value):
      for continuation in answered { Self.continuation(continuation).resume(returning: value) }
    case .failure(let error):
      for continuation in answered { Self.continuation(continuation).resume(throwing: error) }
    }
  }

  /// Resumes the continuation of `waiter`, which was answered before it
  /// registered, with that answer. Out of line: its `Result` would make
  /// every registration look up the metadata of `Result<Value, any Error>`.
  private func resumeEarlyAnswered(_ waiter: Int, _ continuation: UnsafeRawPointer) {
    // Nothing else touches its answer: it left `admitted` when answered.
    let answer = lock.withLock { answers.removeValue(forKey: waiter) }
    guard let answer else {
      fatalError("ForgeCore: \(ForgeDiagnostic.internalError("a waiter for \(name) was answered without an answer"))")
    }
    Self.continuation(continuation).resume(with: answer)
  }

  private func cancelWait(_ waiter: Int) {
    let cancelled: UnsafeRawPointer? = lock.withLock {
      guard admitted.remove(waiter) != nil else { return nil }  // answered already
      let continuation = waiters.removeValue(forKey: waiter)
      if continuation == nil {
        answeredEarly.insert(waiter)
        answers[waiter] = .failure(CancellationError())
      }
      if admitted.isEmpty, case .building(let flight) = state {
        flight.isAbandoned = true
        flight.task?.cancel()
      }
      return continuation
    }
    if let cancelled { Self.continuation(cancelled).resume(throwing: CancellationError()) }
  }

  /// The kept instance and when it was kept, read together under the lock.
  private var kept: (sequence: Int, instance: Value)? {
    lock.withLock {
      switch state {
      case .built(let value): (keptSequence, value)
      case .builtWeakly(let box): box.object.map { (keptSequence, $0 as! Value) }
      case .idle, .building: nil
      }
    }
  }
}

extension AsyncBuild: AsyncKeptInstance {
  package var keptForShutdown: (sequence: Int, instance: Any)? {
    kept.map { ($0.sequence, $0.instance) }
  }

  package var hasBuildInProgress: Bool {
    let isBuilding = lock.withLock {
      if case .building = state { return true }
      return false
    }
    return isBuilding && !runsInCallingTask
  }

  /// Whether the calling task runs inside this build (a factory that shuts
  /// its own container down): the build cannot end while the task waits.
  private var runsInCallingTask: Bool {
    var frame = AsyncBuildNode.current
    while let current = frame {
      if current.build === self { return true }
      frame = current.parent
    }
    return false
  }

  /// How many tasks wait for the build in progress (for tests that need a
  /// waiter admitted before they go on).
  package var waiterCount: Int { lock.withLock { admitted.count } }

  package func buildInProgressEnded() async {
    guard !runsInCallingTask else { return }
    // A build whose callers were all cancelled may start again for a task
    // that came since: wait for that one too.
    while !Task.isCancelled,
      let task = lock.withLock({ () -> Task<Void, Never>? in
        if case .building(let flight) = state { return flight.task }
        return nil
      })
    {
      let ended = EndOrCancellation()
      Task {
        await task.value
        ended.signal()
      }
      await withTaskCancellationHandler {
        await ended.wait()
      } onCancel: {
        ended.signal()
      }
    }
  }
}

/// Resumes one waiter once: when what it waits for ends, or when its task
/// is cancelled, whichever comes first.
private final class EndOrCancellation: Sendable {
  private let state = LockedValue<(continuation: CheckedContinuation<Void, Never>?, isOver: Bool)>((nil, false))

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOver = state.withValue { state in
        if !state.isOver { state.continuation = continuation }
        return state.isOver
      }
      if isOver { continuation.resume() }
    }
  }

  func signal() {
    let continuation = state.withValue { state in
      state.isOver = true
      defer { state.continuation = nil }
      return state.continuation
    }
    continuation?.resume()
  }
}
