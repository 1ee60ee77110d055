import Forge
import Logging
import ServiceLifecycle

// A server's dependencies, declared with Forge; two of them must close
// cleanly when the server stops.

final class Database: GracefulShutdown {
  func query(_ sql: String) -> String { "rows for \(sql)" }
  func shutdown() async throws { print("database: connections closed") }
}

final class OrderService: GracefulShutdown {
  let database: Database
  init(database: Database) { self.database = database }
  func shutdown() async throws { print("orders: queue drained") }
}

final class ServerContainer: Container, @unchecked Sendable {
  var database: Database { provide(.singleton) { Database() } }
  var orders: OrderService { provide(.singleton) { OrderService(database: self.database) } }
}

/// Shuts a container down when the service group shuts down gracefully.
/// List it first in the group: the group stops services in reverse order,
/// so the container stops after every service that uses it.
struct ContainerShutdownService: Service {
  let container: any DependencyContainer

  func run() async throws {
    // Returns when the group asks for a graceful shutdown (SIGTERM, or
    // triggerGracefulShutdown()); throws if the task is cancelled instead.
    try? await gracefulShutdown()
    let report = await container.shutdown()  // orders first, then database
    print(report)
    if !report.isClean { throw ShutdownFailed(report: report) }
  }
}

struct ShutdownFailed: Error {
  let report: ShutdownReport
}

let container = ServerContainer()
print(container.orders.database.query("SELECT 1"))

let group = ServiceGroup(
  configuration: ServiceGroupConfiguration(
    services: [ContainerShutdownService(container: container)],
    gracefulShutdownSignals: [.sigterm],
    logger: Logger(label: "server")
  )
)
// A real server runs until SIGTERM; the example asks for the shutdown itself.
async let running: Void = group.run()
await group.triggerGracefulShutdown()
try await running
