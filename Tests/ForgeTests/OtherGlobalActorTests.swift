import Forge
import ForgeTestSupport
import Testing

final class StorageContainer: Container, @unchecked Sendable {
  let builds = Counter()

  /// A factory isolated to a global actor other than the main actor: an
  /// async dependency whose closure says `() async`, as the DocC article
  /// shows (without it, a synchronous closure picks the synchronous
  /// `provide` and Swift refuses to drop its actor).
  var storage: AsyncDependency<IsolatedStorage> {
    provide(.singleton) { @StorageActor () async in IsolatedStorage(counting: self.builds) }
  }
}

@Suite("Forge: a factory isolated to another global actor", .timeLimit(.minutes(1)))
struct OtherGlobalActorTests {
  @Test("built once on its actor, awaited on that actor and elsewhere alike")
  func builtOnceOnItsActor() async throws {
    let container = StorageContainer()
    let (instances, writes) = try await StorageActorScenario.readEverywhere { try await container.storage.value }
    #expect(instances.count == 1)
    #expect(writes == 8)
    #expect(container.builds.count == 1)
    let later = try await container.storage.value
    #expect(await later.writes == 8)
  }
}
