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
