/// The executor an asynchronous validation of a dialect whose resolutions
/// cannot throw runs its roots on: one thread of its own, which a
/// synchronous failure inside an async factory may park (see
/// ``ValidationSession/failIfValidating(_:)``), as ``Validation`` parks its
/// own thread for a synchronous root. A thread of the cooperative pool can
/// never be parked, so without this executor such a failure stops the
/// program.
///
/// Each root's task prefers it, and so do the builds that the run starts
/// (``ValidationSession/executor``): their jobs run here, one at a time.
/// The roots of one validation share it while they succeed; after a root
/// that failed (which may have parked the thread), the next root gets a
/// new one. After ``close()``, the thread ends once it has run
/// what is queued, and a task that still prefers the executor (one a
/// factory started, which outlives the run) runs on the global executor.
/// A parked thread runs nothing more: what was queued behind it stays
/// suspended for good, with the partial build it waited for, and never
/// touches the container.
///
/// ```swift
/// let executor = ValidationExecutor()
/// Task(executorPreference: executor) { await root() }
/// // … once the run has ended:
/// executor.close()
/// ```
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class ValidationExecutor: TaskExecutor, @unchecked Sendable {
  // @unchecked: `jobs`, `closed` and `threadEnded` are touched only with
  // `lock` held.
  private let lock = ConditionLock()
  private var jobs: [UnownedJob] = []
  private var closed = false
  private var threadEnded = false

  init() {
    // The thread holds the executor until it ends (or for good, parked).
    DetachedThread.start(purpose: "validation") { [self] in runJobs() }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let forward: Bool = lock.withLock {
      guard !threadEnded else { return true }
      jobs.append(job)
      lock.broadcast()
      return false
    }
    if forward { globalConcurrentExecutor.enqueue(job) }
  }

  /// Lets the thread end once what is queued has run; from then on jobs go
  /// to the global executor. Does nothing to a parked thread.
  func close() {
    lock.withLock {
      closed = true
      lock.broadcast()
    }
  }

  private func runJobs() {
    // A synchronous failure on this thread parks it, in the run of the
    // task whose job it runs.
    ResolutionContext.current.parksForTaskValidation = true
    while true {
      let job: UnownedJob? = lock.withLock {
        while jobs.isEmpty && !closed { lock.wait() }
        guard !jobs.isEmpty else {
          threadEnded = true
          return nil
        }
        return jobs.removeFirst()
      }
      guard let job else { return }
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
