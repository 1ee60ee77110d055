/// Memory for what threads read on every resolution, on cache lines of its
/// own.
///
/// A cached hit reads a handful of words: the thread's state, its hazard
/// pointer and slot cache, the store's override count, the slot's cell and
/// the instance's box. Allocated like any small object, one of them can
/// share a cache line with something other threads write all the time (the
/// reference count of a shared instance, another thread's hazard pointer),
/// and then every read waits for another core: on two threads, a hit cost
/// twice as much as it should, depending on where malloc happened to put
/// things. Each allocation here starts a 128-byte span (a pair of lines, for
/// the adjacent-line prefetcher) and owns all of it.
enum CacheLines {
  static let span = 128

  /// Words in one of a span's two 64-byte lines: a word at this offset or
  /// beyond starts the second line, which a hit that reads the first does
  /// not share.
  static var lineWords: Int { 64 / MemoryLayout<Int>.stride }

  /// Room for `count` values of `T`, initialised by the caller; release it
  /// with ``deallocate(_:)``.
  static func allocate<T>(_ type: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
    let bytes = MemoryLayout<T>.stride * count
    let rounded = (bytes + span - 1) / span * span
    return UnsafeMutableRawPointer.allocate(
      byteCount: Swift.max(rounded, span),
      alignment: Swift.max(MemoryLayout<T>.alignment, span)
    ).bindMemory(to: T.self, capacity: count)
  }

  /// Frees memory from ``allocate(_:count:)``; deinitialise it first.
  static func deallocate<T>(_ pointer: UnsafeMutablePointer<T>) {
    UnsafeMutableRawPointer(pointer).deallocate()
  }
}
