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

/// A lock for sections of a few dozen instructions that call no code of
/// the user's and take no other lock: one compare-and-swap to take, one
/// store to give up, where a pthread mutex costs about 55 instructions a
/// round. A thread that finds it taken tries again, and gives up its core
/// between tries once a few have failed, so a holder that was preempted
/// runs on; since no holder waits for anything, every wait ends.
///
/// ```swift
/// let lock = ShortLock()
/// defer { lock.deallocate() }
/// let answer = lock.withLock { memo.depth(for: id, epoch: epoch) }
/// ```
///
/// Its word is allocated; the owner frees it with ``deallocate()``.
package struct ShortLock: @unchecked Sendable {
  // @unchecked: the word is only touched through atomics.
  private let word: UnsafeMutablePointer<Int>

  package init() {
    word = .allocate(capacity: 1)
    word.initialize(to: 0)
  }

  /// Frees the word; only when no thread can take the lock any more.
  package func deallocate() { word.deallocate() }

  /// Runs `body` with the lock held.
  @inline(__always)
  package func withLock<Result>(_ body: () -> Result) -> Result {
    if !forge_word_compare_exchange(word, 0, 1) { waitAndTake() }
    defer { forge_word_store_release(word, 0) }
    return body()
  }

  /// Takes the lock once its holder gives it up. It reads the word until
  /// it looks free, and only then tries to take it, so that waiters do
  /// not take the word's cache line from the holder on every try.
  @inline(never)
  private func waitAndTake() {
    var tries = 0
    while forge_counter_load(word) != 0 || !forge_word_compare_exchange(word, 0, 1) {
      tries += 1
      if tries >= 16 {
        tries = 0
        sched_yield()
      }
    }
  }
}
