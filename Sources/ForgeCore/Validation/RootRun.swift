/// A validation's synchronous roots, run one after another on threads of
/// their own (``ValidationThreads``: a thread that ran an earlier
/// validation's roots and waits for more, or a new one), for a dialect
/// whose resolutions cannot throw (see ``Validation``).
///
/// A thread runs the roots not yet started, in order, without waiting for
/// the driver between them. A root that fails parks its thread for good
/// (``ValidationSession/failIfValidating(_:)``): the driver, which waits
/// for each root's session to end in order, then starts another thread,
/// which goes on with the next root. So a validation of many sound roots
/// starts one thread, not one per root, and each failing root costs one
/// idle thread, as before. (A root written to throw ends its session and
/// returns instead; its thread then goes on too, beside the new one. Each
/// root still runs once, in a session of its own.)
///
/// ```swift
/// let run = RootRun(roots.map { root in { resolve(root) } })
/// run.startThread()
/// // for each root, in order: wait for its session to end, and after a
/// // failure, run.startThread()
/// ```
final class RootRun: @unchecked Sendable {
  // @unchecked: `started` is touched only with `lock` held.
  private let lock = ConditionLock()
  private let roots: [() -> Void]
  /// How many roots a thread has taken.
  private var started = 0

  init(_ roots: [() -> Void]) { self.roots = roots }

  /// Starts a thread that runs the roots no thread has taken yet, in
  /// order, until none is left: one of ``ValidationThreads`` that waits
  /// for work, or a new one.
  func startThread() {
    // The thread holds the run until its roots are done (or for good,
    // parked).
    ValidationThreads.shared.run { [self] in
      while let root = takeRoot() { root() }
    }
  }

  private func takeRoot() -> (() -> Void)? {
    lock.withLock {
      guard started < roots.count else { return nil }
      defer { started += 1 }
      return roots[started]
    }
  }
}
