import Dispatch
import ForgeCore

/// A class whose instances tests compare by identity.
final class Thing: Sendable {
  let label: String
  init(_ label: String = "thing") { self.label = label }
}

/// Counts factory runs across threads.
final class Counter: Sendable {
  private let value = LockedValue(0)
  func increment() { value.withValue { $0 += 1 } }
  var count: Int { value.current }
}

struct Boom: Error, Equatable {}

/// Runs `body` on `threads` real threads at once, released together.
func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
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
