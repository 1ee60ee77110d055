import DependencyFetcher
import Forge
import ForgeInject
import SwiftPod
import Testing

// The README's async example, kept compiling and checked here.

final class Database: Sendable {
  static func open() async throws -> Database { Database() }
}

// Forge: the property hands out an AsyncDependency.
extension AppContainer {
  var database: AsyncDependency<Database> { provide(.singleton) { try await Database.open() } }
}

// DependencyFetcher: an AsyncService.
extension AsyncService where T == Database {
  static let database = AsyncService { _ in try await Database.open() }
}

@Suite("README: async dependencies", .timeLimit(.minutes(1)))
struct ReadmeAsyncExampleTests {
  @Test("each dialect's async form resolves one instance per container")
  func asyncExample() async throws {
    let fromForge = try await AppContainer.shared.database.value

    // ForgeInject: an async builder, resolved with resolveAsync().
    let container = ForgeContainer()
    container.register(with: .singleton) { _ async throws in try await Database.open() }
    let fromInject: Database = try await container.resolveAsync()

    // SwiftPod: an AsyncProvider.
    let databaseProvider = AsyncProvider { _ in try await Database.open() }
    let pod = SwiftPod()
    let fromPod = try await pod.resolve(databaseProvider)

    let fetcher = Fetcher.createDefault()
    let fromFetcher = try await fetcher.fetch(.database)

    #expect(try await AppContainer.shared.database.value === fromForge)
    #expect(try await container.resolveAsync(Database.self) === fromInject)
    #expect(try await pod.resolve(databaseProvider) === fromPod)
    #expect(try await fetcher.fetch(.database) === fromFetcher)
    #expect(Set([fromForge, fromInject, fromPod, fromFetcher].map(ObjectIdentifier.init)).count == 4)
  }
}
