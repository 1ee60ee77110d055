// Accepted in Swift 6 language mode without a warning: each dialect's async
// and main-actor forms, read where Swift allows them.
import DependencyFetcher
import Forge
import ForgeInject
import SwiftPod

final class Database: Sendable {
  let isOpen = true
  static func open() async throws -> Database { Database() }
}

@MainActor final class SettingsModel {
  let title = "Settings"
}

extension AppContainer {
  var database: AsyncDependency<Database> { provide(.singleton) { try await Database.open() } }
  var settings: MainActorDependency<SettingsModel> { provide(.singleton) { @MainActor in SettingsModel() } }
}

let databaseProvider = AsyncProvider { _ in try await Database.open() }
let settingsProvider = MainActorProvider { _ in SettingsModel() }

extension AsyncService where T == Database {
  static let database = AsyncService { _ in try await Database.open() }
}

func readAsync(container: ForgeContainer, pod: SwiftPod, fetcher: Fetcher) async throws {
  _ = try await AppContainer.shared.database.value
  _ = try await pod.resolve(databaseProvider)
  _ = try await fetcher.fetch(.database)
  container.register(with: .singleton) { _ async throws in try await Database.open() }
  _ = try await container.resolveAsync(Database.self)
  // Existing synchronous resolutions inside an async function still compile
  // unchanged: resolveAsync() is not an overload of resolve().
  container.register(with: .singleton) { _ in 42 }
  let answer: Int = try container.resolve()
  _ = answer
  // Elsewhere than the main actor, a main-actor dependency is awaited.
  _ = await AppContainer.shared.settings.value.title
  _ = await pod.resolve(settingsProvider).title
  container.register(with: .singleton, onMainActor: { _ in SettingsModel() })
  let model: SettingsModel = try await container.resolveAsync()
  _ = model.title  // a let of a Sendable class: no hop
}

@MainActor func readOnMainActor(pod: SwiftPod, container: ForgeContainer) throws {
  // On the main actor, synchronously.
  _ = AppContainer.shared.settings.value.title
  _ = pod.resolve(settingsProvider).title
  let model: SettingsModel = try container.resolve()
  _ = model.title
}

// On the main actor, awaiting async dependencies (ForgeCore's "Async
// dependencies" article): the entry points run on their caller's executor,
// so the model's state is written on the main actor without a hop.
@MainActor final class AccountModel {
  var isReady = false

  func load(from container: AppContainer) async throws {
    let database = try await container.database.value  // once kept: read here, no suspension
    isReady = database.isOpen
  }

  func load(pod: SwiftPod, fetcher: Fetcher, container: ForgeContainer) async throws {
    isReady = try await pod.resolve(databaseProvider).isOpen
    isReady = try await fetcher.fetch(.database).isOpen
    isReady = try await container.resolveAsync(Database.self).isOpen
  }
}
