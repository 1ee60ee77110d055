import Foundation

/// Mutable state that the demo's services share between threads, behind a
/// lock.
///
/// The services are `Sendable` singletons that several tasks call at once,
/// so their state needs a lock. On macOS 15, iOS 18 and later, or on Linux,
/// `Mutex` from the standard library's `Synchronization` module does the same
/// job; this small class also runs on the older systems Forge supports.
final class Locked<Value: Sendable>: @unchecked Sendable {
  // @unchecked: `value` is read and written only while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  /// Runs `body` with exclusive access to the value.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  /// The value now.
  var current: Value {
    get { withLock { $0 } }
    set { withLock { $0 = newValue } }
  }
}
