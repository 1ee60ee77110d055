// An async dependency read from synchronous code.
// expected-error: 'async' property access in a function that does not support concurrency
import Forge

final class Database: Sendable {
  static func open() async throws -> Database { Database() }
}

extension AppContainer {
  var database: AsyncDependency<Database> { provide(.singleton) { try await Database.open() } }
}

func readSynchronously() throws {
  _ = try AppContainer.shared.database.value
}
