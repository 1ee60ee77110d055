import Forge
import Testing

@Suite("provide and scopes", .timeLimit(.minutes(1)))
struct ProvideTests {
  let container = TestContainer()

  @Test("transient builds a new instance per read")
  func transient() {
    #expect(container.transient !== container.transient)
  }

  @Test("singleton builds once for the container's lifetime")
  func singleton() {
    let first = container.singleton
    #expect(container.singleton === first)
    #expect(container.builds.count == 1)
    #expect(TestContainer().singleton !== first)
  }

  @Test("resetCached clears cached instances but keeps singletons and overrides")
  func resetCached() {
    let singleton = container.singleton
    let cached = container.cached
    container.override(\.transient) { Service("mock") }
    container.resetCached()
    #expect(container.singleton === singleton)
    #expect(container.cached !== cached)
    #expect(container.transient.label == "mock")
  }

  @Test("resetAll clears every instance and every override")
  func resetAll() {
    let singleton = container.singleton
    container.override(\.cached) { Service("mock") }
    container.resetAll()
    #expect(container.singleton !== singleton)
    #expect(container.cached.label == "real")
  }

  @Test("an explicit key identifies the dependency")
  func explicitKey() {
    container.override(\.explicitKey) { Service("mock") }
    #expect(container.explicitKey.label == "mock")
  }

  @Test("a factory reads other properties (re-entrant resolution)")
  func reentrant() {
    #expect(container.dependent[0] === container.singleton)
  }

  @Test("many threads reading one singleton build it exactly once")
  func concurrentSingleton() async {
    for _ in 0..<10 {
      let container = TestContainer()
      let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
        for _ in 0..<32 { group.addTask { ObjectIdentifier(container.singleton) } }
        return await group.reduce(into: Set()) { $0.insert($1) }
      }
      #expect(ids.count == 1)
      #expect(container.builds.count == 1)
    }
  }
}
