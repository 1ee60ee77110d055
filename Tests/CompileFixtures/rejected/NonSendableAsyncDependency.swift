// An async dependency whose instance could not be shared between tasks.
// expected-error: does not conform to the 'Sendable' protocol
import Forge

final class Cache {
  var entries: [String] = []
}

extension AppContainer {
  var cache: AsyncDependency<Cache> { provide(.singleton) { Cache() } }
}
