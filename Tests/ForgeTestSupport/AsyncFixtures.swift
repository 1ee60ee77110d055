import ForgeCore

// Fixtures for async dependencies, the same in every dialect's tests: a gate
// that factories wait at without blocking a thread, a factory that counts its
// builds, and many concurrent reads.

/// A gate that async factories wait at until a test opens it. Waiting
/// suspends the task; no thread is blocked. A waiting task that is
/// cancelled (as a test's time limit cancels it) passes at once, so a gate
/// that a failing test never opens cannot hang the run.
package final class AsyncGate: Sendable {
  private struct State {
    var isOpen: Bool
    var nextWaiter = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Waiters cancelled before they were suspended.
    var cancelled: Set<Int> = []
  }
  private let state: LockedValue<State>

  package init(open: Bool = false) { state = LockedValue(State(isOpen: open)) }

  package func wait() async {
    let waiter = state.withValue { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let passes = state.withValue { state in
          if state.isOpen || state.cancelled.remove(waiter) != nil { return true }
          state.waiters[waiter] = continuation
          return false
        }
        if passes { continuation.resume() }
      }
    } onCancel: {
      let suspended = state.withValue { state in
        guard let continuation = state.waiters.removeValue(forKey: waiter) else {
          if !state.isOpen { state.cancelled.insert(waiter) }
          return nil as CheckedContinuation<Void, Never>?
        }
        return continuation
      }
      suspended?.resume()
    }
  }

  package func open() {
    let waiters = state.withValue { state in
      state.isOpen = true
      state.cancelled = []
      defer { state.waiters = [:] }
      return state.waiters.values
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// What an async factory does in these tests: counts the build, waits at
/// ``gate``, then throws on the builds ``failing`` names or makes a
/// ``Thing``.
package final class AsyncFactory: Sendable {
  package struct Failed: Error, Equatable { package init() {} }
  package let builds = Counter()
  package let gate: AsyncGate
  /// How many tasks have started a read, as ``reads(_:_:)`` counts them.
  package let entered = Counter()
  private let failing: Set<Int>
  private let sleepsUntilCancelled: Set<Int>

  /// - Parameters:
  ///   - failing: the builds (1 is the first) that throw ``Failed``.
  ///   - sleepsUntilCancelled: the builds that sleep until their task is
  ///     cancelled, then throw `CancellationError`.
  package init(open: Bool = true, failing: Set<Int> = [], sleepsUntilCancelled: Set<Int> = []) {
    gate = AsyncGate(open: open)
    self.failing = failing
    self.sleepsUntilCancelled = sleepsUntilCancelled
  }

  package func make() async throws -> Thing {
    let build = builds.incremented()
    if sleepsUntilCancelled.contains(build) { try await Task.sleep(for: .seconds(600)) }
    await gate.wait()
    if failing.contains(build) { throw Failed() }
    return Thing("build \(build)")
  }

  /// `count` tasks of one task group read at once with `read`; the gate
  /// opens once every task has started its read, so every read but the
  /// first waits for a build in progress. More tasks than the machine has
  /// threads: a read that blocked its thread would stall the others.
  package func reads(_ count: Int, _ read: @escaping @Sendable () async throws -> Thing) async -> [Result<
    Thing, any Error
  >] {
    async let opened: Void = {
      await yield(until: self.entered.count >= count)
      // Let the last readers reach their wait.
      try? await Task.sleep(for: .milliseconds(20))
      self.gate.open()
    }()
    let results = await withTaskGroup(of: Result<Thing, any Error>.self) { group in
      for _ in 0..<count {
        group.addTask {
          self.entered.increment()
          do { return .success(try await read()) } catch { return .failure(error) }
        }
      }
      var results: [Result<Thing, any Error>] = []
      for await result in group { results.append(result) }
      return results
    }
    await opened
    return results
  }
}

/// The distinct instances among successful `results`, and the errors.
package func summary(_ results: [Result<Thing, any Error>]) -> (instances: Int, errors: [any Error]) {
  let instances = Set(results.compactMap { try? ObjectIdentifier($0.get()) }).count
  let errors = results.compactMap { result -> (any Error)? in
    if case .failure(let error) = result { return error }
    return nil
  }
  return (instances, errors)
}

/// Yields until `condition` holds or the calling task is cancelled (as a
/// test's time limit cancels it): a wait that never ends then ends the
/// test with what it found instead of hanging the run.
package func yield(until condition: @autoclosure () -> Bool) async {
  while !condition(), !Task.isCancelled { await Task.yield() }
}

/// `task`'s result; cancels `task` when the calling task is cancelled (as a
/// test's time limit cancels it), since an unstructured task is not
/// cancelled with its creator.
package func result<T: Sendable>(of task: Task<T, any Error>) async -> Result<T, any Error> {
  await withTaskCancellationHandler {
    await task.result
  } onCancel: {
    task.cancel()
  }
}

/// `body`'s value or error.
package func attempt<T: Sendable>(_ body: @Sendable () async throws -> T) async -> Result<T, any Error> {
  do { return .success(try await body()) } catch { return .failure(error) }
}

/// Scenarios every dialect's async tests run, each returning what a test
/// checks.
package enum AsyncScenario {
  /// Two tasks await the first build, held at the factory's gate; the first
  /// is cancelled, then the gate opens. The cancelled task's result, the
  /// other's, and a read after both.
  package static func cancelOneWaiter(
    _ factory: AsyncFactory,
    _ read: @escaping @Sendable () async throws -> Thing
  ) async -> (cancelled: Result<Thing, any Error>, kept: Result<Thing, any Error>, later: Result<Thing, any Error>) {
    let cancelled = Task { try await read() }
    let kept = Task { try await read() }
    await yield(until: factory.builds.count > 0)
    // Both waits are registered before the cancellation matters: a task
    // cancelled before it waits is refused at once, which the test accepts.
    try? await Task.sleep(for: .milliseconds(20))
    cancelled.cancel()
    let cancelledResult = await result(of: cancelled)
    factory.gate.open()
    let keptResult = await result(of: kept)
    return (cancelledResult, keptResult, await attempt(read))
  }

  /// The only task awaiting the first build (which sleeps until cancelled)
  /// is cancelled: its result, and a read after it.
  package static func cancelLastWaiter(
    _ factory: AsyncFactory,
    _ read: @escaping @Sendable () async throws -> Thing
  ) async -> (cancelled: Result<Thing, any Error>, later: Result<Thing, any Error>) {
    let only = Task { try await read() }
    await yield(until: factory.builds.count > 0)
    only.cancel()
    let cancelled = await result(of: only)
    return (cancelled, await attempt(read))
  }

  /// Two tasks read two dependencies whose factories wait at `gate` and then
  /// await each other; the gate opens once both builds have started.
  package static func crossTaskCycle<T: Sendable>(
    gate: AsyncGate,
    _ left: @escaping @Sendable () async throws -> T,
    _ right: @escaping @Sendable () async throws -> T
  ) async -> [Result<T, any Error>] {
    async let leftResult = attempt(left)
    async let rightResult = attempt(right)
    try? await Task.sleep(for: .milliseconds(50))
    gate.open()
    return await [leftResult, rightResult]
  }
}

extension Result {
  /// The error, if this is one.
  package var error: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

/// A global actor other than the main actor: dependencies whose factory is
/// isolated to it are async dependencies in every dialect, awaited on it as
/// anywhere else.
@globalActor package actor StorageActor {
  package static let shared = StorageActor()
}

/// What a factory isolated to ``StorageActor`` builds: isolated to it too
/// (and so Sendable), counting its builds in the counter it is given.
@StorageActor package final class IsolatedStorage {
  package private(set) var writes = 0

  package init(counting builds: Counter) { builds.increment() }

  /// Mutable state only the storage actor touches.
  package func write() -> Int {
    writes += 1
    return writes
  }
}

/// Reads of a dependency whose factory is isolated to ``StorageActor``.
package enum StorageActorScenario {
  /// 32 tasks and 8 tasks on ``StorageActor`` await `read` at once: the
  /// distinct instances they received, and the writes those on the actor
  /// made through it (synchronously, on the actor).
  package static func readEverywhere(
    _ read: @escaping @Sendable () async throws -> IsolatedStorage
  ) async throws -> (instances: Set<ObjectIdentifier>, writesOnTheActor: Int) {
    try await withThrowingTaskGroup(of: (ObjectIdentifier, Int).self) { group in
      for index in 0..<40 {
        group.addTask {
          if index.isMultiple(of: 5) { return try await readOnStorageActor(read) }
          return (ObjectIdentifier(try await read()), 0)
        }
      }
      var instances = Set<ObjectIdentifier>()
      var writes = 0
      for try await (instance, wrote) in group {
        instances.insert(instance)
        writes += wrote
      }
      return (instances, writes)
    }
  }

  @StorageActor private static func readOnStorageActor(
    _ read: @Sendable () async throws -> IsolatedStorage
  ) async throws -> (ObjectIdentifier, Int) {
    let storage = try await read()
    _ = storage.write()
    return (ObjectIdentifier(storage), 1)
  }
}

/// Whether `body`, run on the main actor, let other main-actor work run
/// in the middle of it: a job enqueued on the main actor just before it
/// runs at the first suspension, since the main actor takes its jobs in
/// order. An `await` that needs no executor switch does not suspend.
///
/// ```swift
/// #expect(try await letsMainActorWorkRun { _ = try await pod.resolve(provider) } == false)
/// ```
@MainActor
package func letsMainActorWorkRun(_ body: @MainActor () async throws -> Void) async rethrows -> Bool {
  let ran = Signal()
  let other = Task { @MainActor in ran.raise() }
  try await body()
  let suspended = ran.isRaised
  await other.value
  return suspended
}

/// Starts `container.shutdown()` in a task of its own and says whether it
/// returned before it found the build in progress and waited for it: for
/// a test whose container has a build in progress, held until the test
/// lets it go, that the shutdown must wait for. Looks every millisecond,
/// for at most 30 s.
package func shutdownInBackground(
  _ container: any DependencyContainer
) async -> (shutdown: Task<ShutdownReport, Never>, returnedEarly: Bool) {
  let finished = Counter()
  let waitsBefore = container.engine.shutdownWaitCount
  let shutdown = Task {
    defer { finished.increment() }
    return await container.shutdown()
  }
  for _ in 0..<30_000 {
    if container.engine.shutdownWaitCount > waitsBefore || finished.count != 0 { break }
    try? await Task.sleep(for: .milliseconds(1))
  }
  // Once the shutdown waits for the build, only the test's letting it go
  // ends the wait: it cannot have returned since.
  return (shutdown, finished.count != 0 || container.engine.shutdownWaitCount == waitsBefore)
}
