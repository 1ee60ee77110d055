import Dispatch
import SwiftPod
import Synchronization

final class Thing: Sendable {
  let label: String
  init(_ label: String = "thing") { self.label = label }
}

final class Counter: Sendable {
  private let value = Mutex(0)
  func increment() { value.withLock { $0 += 1 } }
  var count: Int { value.withLock { $0 } }
}

final class SignUpScope: ProviderScope {
  let children: [any ProviderScope] = [SignUpStepScope()]
}

final class SignUpStepScope: ProviderScope {
  let children: [any ProviderScope] = []
}

struct UnrelatedScope: ProviderScope {
  let children: [any ProviderScope] = []
}

/// A scope whose children point back at it; clearing must still end.
struct LoopingScope: ProviderScope {
  var children: [any ProviderScope] { [LoopingScope()] }
}
