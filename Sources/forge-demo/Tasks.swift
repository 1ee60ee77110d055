import Forge

// The tasks module: an in-memory store, a service over it, and a view model
// that lives until the session ends. Logger, analytics and the signed-in user
// come from other modules through proxies wired by the composition root.

struct TaskItem: Sendable, Equatable {
  let id: Int
  let owner: String
  var title: String
  var done = false
}

protocol TaskStore: Sendable {
  func insert(owner: String, title: String) -> TaskItem
  func update(_ id: Int, _ change: (inout TaskItem) -> Void)
  func all(owner: String) -> [TaskItem]
}

final class InMemoryTaskStore: TaskStore, GracefulShutdown {
  private let items = Locked<[TaskItem]>([])

  /// At shutdown: a real store would flush to disk here.
  func shutdown() async throws {
    print("  [tasks] store flushed \(items.current.count) tasks")
  }

  func insert(owner: String, title: String) -> TaskItem {
    items.withLock { items in
      let item = TaskItem(id: items.count + 1, owner: owner, title: title)
      items.append(item)
      return item
    }
  }

  func update(_ id: Int, _ change: (inout TaskItem) -> Void) {
    items.withLock { items in
      if let index = items.firstIndex(where: { $0.id == id }) { change(&items[index]) }
    }
  }

  func all(owner: String) -> [TaskItem] {
    items.current.filter { $0.owner == owner }
  }
}

enum TaskError: Error, CustomStringConvertible {
  case notLoggedIn
  var description: String { "log in first" }
}

/// Adds and completes the signed-in user's tasks.
final class TaskService: Sendable {
  private let store: any TaskStore
  private let auth: any AuthService
  private let analytics: any Analytics
  private let logger: any Logger

  init(store: any TaskStore, auth: any AuthService, analytics: any Analytics, logger: any Logger) {
    self.store = store
    self.auth = auth
    self.analytics = analytics
    self.logger = logger
  }

  private func owner() throws -> String {
    guard let user = auth.currentUser else { throw TaskError.notLoggedIn }
    return user.name
  }

  @discardableResult
  func add(_ title: String) throws -> TaskItem {
    let item = store.insert(owner: try owner(), title: title)
    analytics.track("task_added")
    logger.log("tasks", "added #\(item.id) \"\(title)\"")
    return item
  }

  func complete(_ id: Int) throws {
    _ = try owner()
    store.update(id) { $0.done = true }
    analytics.track("task_completed")
    logger.log("tasks", "completed #\(id)")
  }

  func tasks() throws -> [TaskItem] { store.all(owner: try owner()) }
}

/// What a task-list screen shows; kept until the session ends.
final class TaskListViewModel: Sendable {
  let service: TaskService
  let createdFor: String

  init(service: TaskService, user: String) {
    self.service = service
    self.createdFor = user
  }

  func render() throws -> [String] {
    try service.tasks().map { "\($0.done ? "[x]" : "[ ]") #\($0.id) \($0.title)" }
  }
}

typealias TasksInject<T> = ContainerInject<TasksContainer, T>

final class TasksContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = TasksContainer()

  // Proxies, wired by the composition root.
  var logger: any Logger { provide(.singleton) { unimplemented("logger") } }
  var analytics: any Analytics { provide(.singleton) { unimplemented("analytics") } }
  var authService: any AuthService { provide(.singleton) { unimplemented("authService") } }

  var taskStore: any TaskStore {
    provide(.singleton) { InMemoryTaskStore() }
  }

  var taskService: TaskService {
    provide(.singleton) {
      TaskService(store: self.taskStore, auth: self.authService, analytics: self.analytics, logger: self.logger)
    }
  }

  var taskList: TaskListViewModel {
    provide(.cached) {
      TaskListViewModel(service: self.taskService, user: self.authService.currentUser?.name ?? "nobody")
    } preview: {
      TaskListViewModel(service: self.taskService, user: "preview")
    }
  }
}
