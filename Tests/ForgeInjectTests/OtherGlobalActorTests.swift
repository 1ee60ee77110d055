import ForgeInject
import ForgeTestSupport
import Testing

@Suite("ForgeInject: a builder isolated to another global actor", .timeLimit(.minutes(1)))
struct OtherGlobalActorTests {
  @Test("built once on its actor, awaited on that actor and elsewhere alike")
  func builtOnceOnItsActor() async throws {
    let builds = Counter()
    let container = ForgeContainer()
    // `async` marks it as an async builder: a synchronous closure would pick
    // the synchronous register, and Swift refuses to drop its actor.
    container.register(with: .singleton) { @StorageActor _ async in IsolatedStorage(counting: builds) }
    let (instances, writes) = try await StorageActorScenario.readEverywhere {
      try await container.resolveAsync(IsolatedStorage.self)
    }
    #expect(instances.count == 1)
    #expect(writes == 8)
    #expect(builds.count == 1)
    let later = try await container.resolveAsync(IsolatedStorage.self)
    #expect(await later.writes == 8)
  }
}
