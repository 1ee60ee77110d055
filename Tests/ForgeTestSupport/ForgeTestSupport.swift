import Dispatch
import ForgeCore

// Fixtures every test target uses: a class compared by identity, a counter
// that threads share, and a way to run code on real threads at once.

/// A class whose instances tests compare by identity.
package final class Thing: Sendable {
  package let label: String
  package init(_ label: String = "thing") { self.label = label }
}

/// Counts runs (of a factory, say) across threads.
package final class Counter: Sendable {
  private let value = LockedValue(0)
  package init() {}
  package func increment() { value.withValue { $0 += 1 } }
  package var count: Int { value.current }
}

/// The distinct objects seen across threads. Over a pthread mutex, which
/// ThreadSanitizer understands: `Synchronization.Mutex` waits on a futex
/// that it cannot see, and then reports the guarded value as raced.
package final class IdentitySet: Sendable {
  private let ids = LockedValue<Set<ObjectIdentifier>>([])
  package init() {}
  package func insert(_ object: AnyObject) { ids.withValue { _ = $0.insert(ObjectIdentifier(object)) } }
  package var count: Int { ids.current.count }
}

/// Runs `body` on `threads` real threads, released together, and returns
/// when all have finished.
package func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let start = DispatchSemaphore(value: 0)
  let group = DispatchGroup()
  for index in 0..<threads {
    DispatchQueue.global().async(group: group) {
      start.wait()
      body(index)
    }
  }
  for _ in 0..<threads { start.signal() }
  group.wait()
}
