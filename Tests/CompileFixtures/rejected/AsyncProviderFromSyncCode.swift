// An async provider resolved from synchronous code.
// expected-error: 'async' call in a function that does not support concurrency
import SwiftPod

let numberProvider = AsyncProvider { _ in 42 }

func resolveSynchronously(pod: SwiftPod) throws -> Int {
  try pod.resolve(numberProvider)
}
