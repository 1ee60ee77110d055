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
  @discardableResult
  package func add(_ delta: Int) -> Int { forge_counter_add(word, delta) }

  /// Runs `body` with the counter raised by one, lowered again however
  /// `body` ends: how a gate counts the scopes active in the process.
  package func counting<R>(_ body: () throws -> R) rethrows -> R {
    add(1)
    defer { add(-1) }
    return try body()
  }

  /// The asynchronous form of ``counting(_:)-(()throws->R)``.
  nonisolated(nonsending)
  package func counting<R>(_ body: () async throws -> R) async rethrows -> R {
    add(1)
    defer { add(-1) }
    return try await body()
  }
}

/// Process-wide counters that let the lock-free read path skip checks that
/// cannot apply: while no closure-scoped override or forced preview mode is
/// active anywhere, no task-local needs reading. They are written only when
/// such a scope starts or ends, never on the read path.
@usableFromInline package enum Gates {
  @inlinable
  package static var activeOverrideScopes: AtomicCounter { AtomicCounter(word: forge_gate_word(0)) }
  @inlinable
  package static var forcedPreviewScopes: AtomicCounter { AtomicCounter(word: forge_gate_word(1)) }
  /// Hands out store identities that are never reused.
  package static var storeIdentities: AtomicCounter { AtomicCounter(word: forge_gate_word(2)) }
}
