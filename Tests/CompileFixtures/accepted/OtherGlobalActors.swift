// Accepted in Swift 6 language mode without a warning: a factory isolated to
// a global actor other than the main actor, declared in each dialect as an
// async dependency and awaited, on that actor as anywhere else. Forge's and
// ForgeInject's closures say `async`: see the rejected
// SyncClosureOfAnotherGlobalActor.swift.
import DependencyFetcher
import Forge
import ForgeInject
import SwiftPod

@globalActor actor StorageActor {
  static let shared = StorageActor()
}

/// Isolated to the storage actor, and so Sendable.
@StorageActor final class Storage {
  var writes = 0
  func write() { writes += 1 }
}

extension AppContainer {
  var storage: AsyncDependency<Storage> { provide(.singleton) { @StorageActor () async in Storage() } }
}

// An async provider's or service's closure may be synchronous and isolated.
let storageProvider = AsyncProvider { @StorageActor _ in Storage() }

extension AsyncService where T == Storage {
  static let storage = AsyncService { @StorageActor _ in Storage() }
}

func register(_ container: ForgeContainer) {
  container.register(with: .singleton) { @StorageActor _ async in Storage() }
}

@StorageActor func writeOnStorageActor(container: ForgeContainer, pod: SwiftPod, fetcher: Fetcher) async throws {
  try await AppContainer.shared.storage.value.write()
  try await pod.resolve(storageProvider).write()
  try await fetcher.fetch(.storage).write()
  let storage: Storage = try await container.resolveAsync()
  storage.write()
}

func writeElsewhere(container: ForgeContainer) async throws {
  try await AppContainer.shared.storage.value.write()
  let storage: Storage = try await container.resolveAsync()
  await storage.write()
}
