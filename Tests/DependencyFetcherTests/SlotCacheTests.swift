import DependencyFetcher
import ForgeTestSupport
import Testing

@Suite("DependencyFetcher: a service's cached slot serves its own fetcher only", .timeLimit(.minutes(1)))
struct SlotCacheTests {
  @Test("fetchers made one after another, sync and async, each keep their own instance")
  func fetchersComeAndGo() async {
    // In a process of its own: a parallel test's scope would send every
    // fetch to the lock, and the cache is filled and read without it.
    await #expect(processExitsWith: .success) {
      let service = Service { Thing() }
      let asyncService = AsyncService { _ in Thing() }
      var previous: (Thing, Thing)?
      for round in 0..<100 {
        let fetcher = Fetcher.createDefault()
        let (thing, asyncThing) = (fetcher.fetch(service), try await fetcher.fetch(asyncService))
        for _ in 0..<3 {
          let (again, asyncAgain) = (fetcher.fetch(service), try await fetcher.fetch(asyncService))
          precondition(again === thing && asyncAgain === asyncThing, "round \(round): another fetcher's instance")
        }
        if let previous {
          precondition(previous.0 !== thing && previous.1 !== asyncThing, "round \(round): a gone fetcher's")
        }
        previous = (thing, asyncThing)
      }
    }
  }

  @Test("a fetcher with overrides serves them, and its own instances of the rest, whichever fetcher a service caches")
  func overriddenFetchers() async {
    // In a process of its own, as above.
    await #expect(processExitsWith: .success) {
      let overridden = Service { Thing("real") }
      let plain = Service { Thing("plain") }
      // The services cache the first fetcher's slots; the others find
      // theirs through their tables.
      let first = Fetcher.createDefault()
      let firstPlain = first.fetch(plain)
      _ = first.fetch(overridden)
      for _ in 0..<3 {
        let mock = Thing("mock")
        let fetcher = Fetcher.create().addOverride(for: overridden) { mock }.done()
        let own = fetcher.fetch(plain)
        precondition(own !== firstPlain, "another fetcher's instance")
        for _ in 0..<3 {
          precondition(fetcher.fetch(overridden) === mock, "the override was not served")
          precondition(fetcher.fetch(plain) === own, "a service not overridden lost its instance")
        }
      }
      let alone = Fetcher.create().addOverride(for: overridden) { Thing("first mock") }.done()
      precondition(alone.fetch(overridden).label == "first mock" && first.fetch(plain) === firstPlain)
    }
  }

  @Test("fetchers made one after another each keep their own instance of a main-actor service")
  func fetchersComeAndGoOnTheMainActor() async {
    await #expect(processExitsWith: .success) {
      await MainActor.run {
        let service = MainActorService { _ in Thing() }
        var previous: Thing?
        for round in 0..<100 {
          let fetcher = Fetcher.createDefault()
          let thing = fetcher.fetch(service)
          for _ in 0..<3 {
            precondition(fetcher.fetch(service) === thing, "round \(round): another fetcher's instance")
          }
          precondition(previous !== thing, "round \(round): a gone fetcher's instance")
          previous = thing
        }
      }
    }
  }
}
