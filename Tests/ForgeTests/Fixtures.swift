import Forge
import ForgeCore
@_exported import ForgeTestSupport

final class Service: Sendable {
  let label: String
  init(_ label: String = "real") { self.label = label }
}

/// A container per test, so tests running in parallel share nothing.
class TestContainer: Container, @unchecked Sendable {
  let builds = Counter()

  var transient: Service { provide(.transient) { Service() } }
  var singleton: Service {
    provide(.singleton) {
      self.builds.increment()
      return Service()
    }
  }
  var cached: Service { provide(.cached) { Service() } }
  var previewed: Service {
    provide(.singleton) {
      Service()
    } preview: {
      Service("preview")
    }
  }
  var dependent: [Service] { provide(.singleton) { [self.singleton] } }
  var cachedDependent: [Service] { provide(.cached) { [self.cached] } }
  var explicitKey: Service { provide(key: "custom-key") { Service() } }
}

extension AppContainer {
  var forgeTestsService: Service { provide(.singleton) { Service() } }
  var forgeTestsConsumer: [Service] { provide(.singleton) { [self.forgeTestsService] } }
}
