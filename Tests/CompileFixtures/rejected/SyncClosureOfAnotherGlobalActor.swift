// A synchronous closure isolated to a global actor other than the main actor,
// for a Forge async dependency: it fits the synchronous-factory `provide`,
// whose closure is not isolated, and Swift refuses to drop the actor. Write
// `{ @StorageActor () async in Storage() }` (OtherGlobalActors.swift).
// expected-error: loses global actor 'StorageActor'
import Forge

@globalActor actor StorageActor {
  static let shared = StorageActor()
}

@StorageActor final class Storage {}

extension AppContainer {
  var storage: AsyncDependency<Storage> { provide(.singleton) { @StorageActor in Storage() } }
}
