import Forge

// The logging module: owns the logger every other module writes to.

protocol Logger: Sendable {
  func log(_ module: String, _ message: String)
}

/// Prints each line with the module it came from.
final class ConsoleLogger: Logger {
  func log(_ module: String, _ message: String) {
    print("  [\(module)] \(message)")
  }
}

final class LoggingContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = LoggingContainer()

  var logger: any Logger {
    provide(.singleton) { ConsoleLogger() }
  }
}
