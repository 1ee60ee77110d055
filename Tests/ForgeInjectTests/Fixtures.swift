import Dispatch
import ForgeInject

protocol NetworkServiceProtocol: Sendable { var id: Int { get } }
final class NetworkService: NetworkServiceProtocol {
  let id: Int
  init(id: Int = 0) { self.id = id }
}

protocol Serviceable: AnyObject, Sendable { func teardown() }
final class TeardownService: Serviceable {
  func teardown() {}
}
final class OtherTeardownService: Serviceable {
  func teardown() {}
}

final class Widget: Sendable {
  let label: String
  init(_ label: String = "widget") { self.label = label }
}

/// Counts builder runs across threads.
final class Counter: Sendable {
  private let value = Mutex(0)
  func increment() { value.withLock { $0 += 1 } }
  var count: Int { value.withLock { $0 } }
}

/// The distinct objects seen across threads. A class around its Mutex: a
/// Mutex captured directly by a @Sendable closure is accessed through the
/// closure's box, which ThreadSanitizer reports.
final class IdentitySet: Sendable {
  private let ids = Mutex<Set<ObjectIdentifier>>([])
  func insert(_ object: AnyObject) { ids.withLock { _ = $0.insert(ObjectIdentifier(object)) } }
  var count: Int { ids.withLock { $0.count } }
}

struct BuilderFailure: Error, Equatable {}

/// Runs `body` on `threads` real threads released together.
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
