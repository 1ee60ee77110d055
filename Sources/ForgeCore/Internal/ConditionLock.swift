#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// A mutex with a condition variable, over pthreads.
///
/// The engine needs both: the mutex guards a store's slots, the condition
/// lets a thread wait while another thread builds the instance it asked for.
/// `Synchronization.Mutex` would need macOS 15 / iOS 18, and `os_unfair_lock`
/// has no condition variable, so this one small type serves every platform.
@usableFromInline package final class ConditionLock: @unchecked Sendable {
  // @unchecked: the pointers are allocated once and only touched through
  // the pthread calls, which are themselves thread-safe.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  /// Where the condition variable starts in the lock's one allocation,
  /// after the mutex.
  private static var conditionOffset: Int {
    let alignment = MemoryLayout<pthread_cond_t>.alignment
    return (MemoryLayout<pthread_mutex_t>.stride + alignment - 1) / alignment * alignment
  }

  package init() {
    // One allocation for both: a container makes several locks, and each
    // allocation costs about as much to make and free as a resolution.
    let memory = UnsafeMutableRawPointer.allocate(
      byteCount: ConditionLock.conditionOffset + MemoryLayout<pthread_cond_t>.stride,
      alignment: Swift.max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<pthread_cond_t>.alignment)
    )
    mutex = memory.initializeMemory(as: pthread_mutex_t.self, repeating: pthread_mutex_t(), count: 1)
    condition = (memory + ConditionLock.conditionOffset)
      .initializeMemory(as: pthread_cond_t.self, repeating: pthread_cond_t(), count: 1)
    let mutexStatus = pthread_mutex_init(mutex, nil)
    let conditionStatus = pthread_cond_init(condition, nil)
    if mutexStatus != 0 || conditionStatus != 0 {
      let diagnostic = ForgeDiagnostic(
        .internalError, "pthread initialisation failed (\(mutexStatus), \(conditionStatus))",
        reason: "The system refused a mutex or condition variable.", fix: "check the process's resource limits.")
      fatalError("ForgeCore: \(diagnostic)")
    }
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    UnsafeMutableRawPointer(mutex).deallocate()  // and the condition with it
  }

  @inline(__always)
  @usableFromInline package func lock() { pthread_mutex_lock(mutex) }

  @inline(__always)
  @usableFromInline package func unlock() { pthread_mutex_unlock(mutex) }

  /// Waits for ``broadcast()``; call with the lock held. Wakes may be spurious,
  /// so callers re-check their condition in a loop.
  package func wait() { pthread_cond_wait(condition, mutex) }

  /// Wakes every thread in ``wait()``; call with the lock held.
  package func broadcast() { pthread_cond_broadcast(condition) }

  /// The moment `seconds` from now, for ``wait(until:)``.
  package static func deadline(after seconds: Double) -> timespec {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let nanoseconds = Int(now.tv_nsec) + Int(seconds * 1_000_000_000)
    var deadline = timespec()
    deadline.tv_sec = now.tv_sec + nanoseconds / 1_000_000_000
    deadline.tv_nsec = nanoseconds % 1_000_000_000
    return deadline
  }

  /// Waits for ``broadcast()`` until `deadline` (``deadline(after:)``); call
  /// with the lock held. False once the deadline has passed; true when
  /// woken, perhaps spuriously, so callers re-check their condition.
  package func wait(until deadline: timespec) -> Bool {
    var deadline = deadline
    return pthread_cond_timedwait(condition, mutex, &deadline) == 0
  }

  @inline(__always)
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}

/// A value behind a ``ConditionLock``, for the few process-wide settings the
/// dialects' public APIs require (such as `Forge.defaultContainer`).
package final class LockedValue<Value> {
  private let lock = ConditionLock()
  private var value: Value

  package init(_ value: Value) { self.value = value }

  package func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock { try body(&value) }
  }

  package var current: Value {
    get { lock.withLock { value } }
    set { lock.withLock { value = newValue } }
  }
}

// Shared between threads only when the value it guards may cross them.
extension LockedValue: @unchecked Sendable where Value: Sendable {
  // @unchecked: `value` is only read and written inside `lock.withLock`.
}
