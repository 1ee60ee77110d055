import ForgeInject

// The reminders feature, wired the ForgeInject way: modules register
// type-keyed factories in a ForgeContainer, and @Injectable types resolve
// them by property type.

protocol ReminderClock: AnyObject, Sendable {
  func now() -> Int
}

/// A clock that advances one minute per reading, so the demo's output is
/// the same on every run.
final class ScriptedClock: ReminderClock {
  private let minute = Mutex(9 * 60)
  func now() -> Int {
    minute.withLock { value in
      defer { value += 1 }
      return value
    }
  }
}

protocol ReminderStore: AnyObject, Sendable {
  func add(_ text: String, at minute: Int)
  var all: [String] { get }
}

final class InMemoryReminderStore: ReminderStore {
  private let reminders = Mutex<[String]>([])
  func add(_ text: String, at minute: Int) {
    let time = "\(minute / 60):\(minute % 60 < 10 ? "0" : "")\(minute % 60)"
    reminders.withLock { $0.append("\(time) \(text)") }
  }
  var all: [String] { reminders.withLock { $0 } }
}

/// Infrastructure: the clock lives as long as the app.
struct ClockModule: ForgeRegisterProtocol {
  func registerDependencies(in container: ForgeContainerProtocol) {
    container.register(with: .singleton) { _ in ScriptedClock() as ReminderClock }
  }
}

/// The feature: the store is per user (dropped at logout), the logger comes
/// from the Forge logging module through a bridge registration.
struct RemindersModule: ForgeRegisterProtocol {
  func registerDependencies(in container: ForgeContainerProtocol) {
    container.register(with: .singleton) { _ in InMemoryReminderStore() as ReminderStore }
    container.register(with: .singleton) { _ in LoggingContainer.shared.logger }
  }
}

/// The ForgeInject composition root.
struct AppDependencies: ForgeRegisterProtocol {
  func registerDependencies(in container: ForgeContainerProtocol) {
    ClockModule().registerDependencies(in: container)
    RemindersModule().registerDependencies(in: container)
  }
}

/// Resolves its dependencies through the generated `init()`.
@Injectable
final class RemindersViewModel {
  let store: ReminderStore
  let clock: ReminderClock
  @Inject var logger: any Logger

  func remind(_ text: String) {
    store.add(text, at: clock.now())
    logger.log("reminders", "scheduled \"\(text)\"")
  }
}
