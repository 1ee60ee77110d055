import DependencyFetcher
import ForgeTestSupport
import Testing

@Suite("DependencyFetcher: a service isolated to another global actor", .timeLimit(.minutes(1)))
struct OtherGlobalActorTests {
  @Test("made once on its actor, awaited on that actor and elsewhere alike")
  func madeOnceOnItsActor() async throws {
    let builds = Counter()
    // A synchronous closure isolated to the actor is an async service's.
    let service = AsyncService { @StorageActor _ in IsolatedStorage(counting: builds) }
    let fetcher = Fetcher.createDefault()
    let (instances, writes) = try await StorageActorScenario.readEverywhere { try await fetcher.fetch(service) }
    #expect(instances.count == 1)
    #expect(writes == 8)
    #expect(builds.count == 1)
    let later = try await fetcher.fetch(service)
    #expect(await later.writes == 8)
  }
}
