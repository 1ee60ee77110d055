import CForgeAtomics

/// A word-sized counter that threads read without a lock. A value type over
/// a pointer, so reading it retains nothing; its owner calls
/// ``deallocate()`` when it goes (process-wide counters never do).
@usableFromInline package struct AtomicCounter: @unchecked Sendable {
  // @unchecked: `word` is allocated once and only touched through the C
  // atomic builtins.
  @usableFromInline let word: UnsafeMutablePointer<Int>

  package init(_ initial: Int = 0) {
    word = CacheLines.allocate(Int.self)  // read on every resolution
    word.initialize(to: initial)
  }

  /// A counter over a word that lives elsewhere, such as a gate's.
  @inlinable
  init(word: UnsafeMutablePointer<Int>) { self.word = word }

  package func deallocate() { CacheLines.deallocate(word) }

  /// The current value (acquire).
  @inlinable
  package var value: Int { forge_counter_load(word) }

  /// Adds `delta` and returns the new value.
  @inlinable @discardableResult
  package func add(_ delta: Int) -> Int { forge_counter_add(word, delta) }
}

/// Process-wide counters that let the lock-free read path skip checks that
/// cannot apply: while no override scope or forced preview mode exists
/// anywhere, no task-local needs reading. They count live scope objects
/// (raised in a scope's initialiser, lowered in its deinitialiser), so a
/// task that still holds a scope, such as an unstructured task started
/// inside `withOverrides`, always takes the path that reads it. They are
/// written only when such a scope starts or ends, never on the read path.
///
/// `activeOverrideScopes` is also raised, by ``taskBoundWeight``, while an
/// async factory whose resolutions are recorded runs (see ``AsyncBuild``)
/// and while an asynchronous validation runs: the resolutions of their
/// tasks must reach the path that reads the build's task-local frame or
/// the validation's session. Other tasks need not: ``isClearForThisTask``
/// lets them keep the lock-free read.
@usableFromInline package enum Gates {
  @inlinable
  package static var activeOverrideScopes: AtomicCounter { AtomicCounter(word: forge_gate_word(0)) }
  @inlinable
  package static var forcedPreviewScopes: AtomicCounter { AtomicCounter(word: forge_gate_word(1)) }
  /// Raised while an asynchronous validation runs: a resolution then looks
  /// for the validation session of its task (see
  /// ``ResolutionContext/validation``).
  package static var asyncValidations: AtomicCounter { AtomicCounter(word: forge_gate_word(2)) }
  /// Bumped whenever a slot records dependencies that differ from what it
  /// recorded before: memos of the dependency graph's shape (an override
  /// scope's reach) hold only while it is unchanged.
  package static var edgeEpoch: AtomicCounter { AtomicCounter(word: forge_gate_word(3)) }
  /// How many stores live override scopes have shut down for themselves
  /// (a test's `shutdown()` of a container it isolates): while it is 0, a
  /// scoped resolution does not ask whether its scope shut its store down.
  package static var scopedShutdowns: AtomicCounter { AtomicCounter(word: forge_gate_word(4)) }
  /// How many overrides live scopes were given while they ran (a
  /// container-wide `override` called inside a test that isolates the
  /// container): while it is 0, a scope's lookup reads only what it was
  /// made with, without its lock.
  package static var addedScopeOverrides: AtomicCounter { AtomicCounter(word: forge_gate_word(5)) }
  /// What a recording async build or an asynchronous validation adds to
  /// ``activeOverrideScopes`` while it runs, where a scope adds 1: the low
  /// half of the word counts the scopes, which any task may hold (an
  /// unstructured task inherits its creator's), the high half the work
  /// whose task-locals only its own tasks carry (2³² on 64-bit platforms).
  @inlinable
  package static var taskBoundWeight: Int { 1 << (Int.bitWidth / 2) }

  /// Whether nothing ``activeOverrideScopes`` counts can apply to the
  /// calling task, so a resolution may take the lock-free read: the gate is
  /// down (one load, the common answer), or it is raised only by work bound
  /// to other tasks (recording async builds, asynchronous validations). An
  /// async singleton's first build records what its factory resolves;
  /// without the second answer, every resolution of the process took the
  /// general path for as long as such a build ran (while a database took
  /// seconds to open, every cached hit cost six to twelve times its
  /// instructions), and as long as a test's `validateAsync` ran.
  ///
  /// ```swift
  /// guard Gates.isClearForThisTask, overrideCount.value == 0 else { return resolveGeneral() }
  /// ```
  @inlinable @inline(__always)
  package static var isClearForThisTask: Bool {
    isDown || isRaisedOnlyForOtherTasks(activeOverrideScopes.value)
  }

  /// Whether ``activeOverrideScopes`` is 0, as a hit asks it: one
  /// comparison with the word in memory (`forge_scope_gate_peek`), where an
  /// atomic load would be a load and a test. No order is needed from it: a
  /// task that raises the gate does so before anything it runs reads it,
  /// and what a read loads before it is used only when the gate was down.
  @inlinable @inline(__always)
  package static var isDown: Bool { forge_scope_gate_peek() == 0 }

  /// The second answer of ``isClearForThisTask``, out of line, for the gate
  /// as it was `raised`: no scope is live anywhere (this task's own would
  /// be counted: it raised the gate before it ran anything), and the
  /// calling task, if any, runs no task-bound work.
  @usableFromInline
  static func isRaisedOnlyForOtherTasks(_ raised: Int) -> Bool {
    // A scope's resolutions ask on every published read: their answer
    // comes before any frame is set up.
    raised & (taskBoundWeight - 1) == 0 && !runsTaskBoundWork()
  }

  /// Whether a thread whose fast-read flags (`forge_fast_read_flags` of
  /// its state `raw`) are not both clear may read lock-free all the same:
  /// only the gate's mirror is set, and the gate is raised only for other
  /// tasks. For ``ResolutionContext/clearFastReader``; a static function
  /// of this enum, whose calls pass no metadata.
  @usableFromInline @inline(never)
  static func isClearPastRaisedGate(_ raw: UnsafeMutableRawPointer) -> Bool {
    forge_fast_read_flags(raw) == forge_scope_gate_flag() && isRaisedOnlyForOtherTasks(activeOverrideScopes.value)
  }

  /// Whether the gate is raised by scopes alone, if at all: no task
  /// anywhere runs task-bound work (a recording async build, an
  /// asynchronous validation), so no resolution needs to look for it in
  /// its task-locals. One load, for a scope's resolution that has read its
  /// scope already.
  package static var runsNoTaskBoundWorkAnywhere: Bool { activeOverrideScopes.value < taskBoundWeight }

  /// Whether the calling task runs a build that records, or belongs to a
  /// running asynchronous validation.
  @inline(never)
  static func runsTaskBoundWork() -> Bool {
    guard forge_runs_in_task() != 0 else { return false }
    if AsyncBuildNode.$currentFrame.boundObject()?.recorder != nil { return true }
    return asyncValidations.value > 0 && ValidationSession.activeTaskSession != nil
  }
}
