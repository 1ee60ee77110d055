/// The threads a synchronous validation runs its roots on (see
/// ``RootRun``). A thread whose work returned waits a moment
/// (``idleSeconds``) for the next validation's before it ends, so that
/// validations one after another, as a test suite makes them, do not each
/// start a thread (15–20 µs of a validation here: Benchmarks/README.md,
/// "Validation"). A thread that a failing root parked
/// never comes back: it is not waiting, so the next work goes to another.
///
/// A waiting thread holds nothing of the work it ran: a validation's
/// container is released when the validation returns, as before.
///
/// ```swift
/// ValidationThreads.shared.run { while let root = takeRoot() { root() } }
/// ```
package final class ValidationThreads: @unchecked Sendable {
  // @unchecked: `handed`, `waiting` and `started` are touched only with
  // `lock` held.
  /// The threads every validation shares.
  static let shared = ValidationThreads(idleSeconds: 0.5)

  private let lock = ConditionLock()
  /// How long a thread waits for more work before it ends.
  let idleSeconds: Double
  /// Work handed over and not yet taken: never more than the threads
  /// waiting for work, plus those starting for it.
  private var handed: [() -> Void] = []
  private var waiting = 0
  private var started = 0

  /// Threads that wait at most `idleSeconds` for more work; tests make
  /// their own, with limits of their own.
  package init(idleSeconds: Double) { self.idleSeconds = idleSeconds }

  /// Runs `work` on a thread that waits for work, or on a new one.
  package func run(_ work: @escaping () -> Void) {
    let startsThread: Bool = lock.withLock {
      handed.append(work)
      guard waiting < handed.count else {
        lock.broadcast()
        return false
      }
      started += 1
      return true
    }
    // The thread holds these threads, which outlive it, not the work.
    if startsThread { DetachedThread.start(purpose: "validation") { [self] in serve() } }
  }

  /// How many threads ``run(_:)`` has started.
  package var threadsStarted: Int { lock.withLock { started } }

  /// How many threads wait for work now.
  package var threadsWaiting: Int { lock.withLock { waiting } }

  private func serve() {
    while runNext() {}
  }

  /// Runs the next work handed over, once some is: false when none came
  /// within ``idleSeconds``. The work is released when this returns, before
  /// the thread waits again.
  private func runNext() -> Bool {
    guard let work = next() else { return false }
    work()
    return true
  }

  private func next() -> (() -> Void)? {
    lock.withLock {
      if handed.isEmpty {
        waiting += 1
        let deadline = ConditionLock.deadline(after: idleSeconds)
        while handed.isEmpty, lock.wait(until: deadline) {}
        waiting -= 1
      }
      return handed.isEmpty ? nil : handed.removeFirst()
    }
  }
}
