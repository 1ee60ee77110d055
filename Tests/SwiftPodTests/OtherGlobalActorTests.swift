import ForgeTestSupport
import SwiftPod
import Testing

@Suite("SwiftPod: a builder isolated to another global actor", .timeLimit(.minutes(1)))
struct OtherGlobalActorTests {
  @Test("built once on its actor, awaited on that actor and elsewhere alike")
  func builtOnceOnItsActor() async throws {
    let builds = Counter()
    // A synchronous builder isolated to the actor is an async provider's.
    let provider = AsyncProvider { @StorageActor _ in IsolatedStorage(counting: builds) }
    let pod = SwiftPod()
    let (instances, writes) = try await StorageActorScenario.readEverywhere { try await pod.resolve(provider) }
    #expect(instances.count == 1)
    #expect(writes == 8)
    #expect(builds.count == 1)
    let later = try await pod.resolve(provider)
    #expect(await later.writes == 8)
  }
}
