// A main-actor dependency read synchronously off the main actor.
// expected-error: main actor-isolated property 'value' can not be referenced from a nonisolated context
import Forge

@MainActor final class SettingsModel {}

extension AppContainer {
  var settings: MainActorDependency<SettingsModel> { provide(.singleton) { @MainActor in SettingsModel() } }
}

func readOffTheMainActor() {
  _ = AppContainer.shared.settings.value
}
