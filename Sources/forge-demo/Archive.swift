import Forge

// The archive: where finished tasks go. It opens asynchronously (as a file or
// a database would), so it is an async dependency: built once however many
// tasks ask at the same moment, and closed in order when the app shuts down.

final class TaskArchive: GracefulShutdown {
  private let entries = Locked<[String]>([])
  private let logger: any Logger

  private init(logger: any Logger) { self.logger = logger }

  /// Opens the archive; takes a moment, without blocking a thread.
  static func open(logger: any Logger) async throws -> TaskArchive {
    try await Task.sleep(for: .milliseconds(20))
    logger.log("archive", "opened")
    return TaskArchive(logger: logger)
  }

  func archive(_ item: TaskItem) {
    entries.withLock { $0.append(item.title) }
  }

  var all: [String] { entries.current.sorted() }

  func shutdown() async throws {
    logger.log("archive", "closed with \(all.count) entries")
  }
}

extension TasksContainer {
  /// Read with `try await TasksContainer.shared.archive.value`.
  var archive: AsyncDependency<TaskArchive> {
    provide(.singleton) { try await TaskArchive.open(logger: self.logger) }
  }
}

/// Looks at each of the signed-in user's tasks from a task of its own and
/// archives the finished ones: every task awaits the one archive that opens.
func archiveFinishedTasks() async throws -> TaskArchive {
  let items = try TasksContainer.shared.taskService.tasks()
  try await withThrowingTaskGroup(of: Void.self) { group in
    for item in items {
      group.addTask {
        let archive = try await TasksContainer.shared.archive.value
        if item.done { archive.archive(item) }
      }
    }
    try await group.waitForAll()
  }
  return try await TasksContainer.shared.archive.value
}
