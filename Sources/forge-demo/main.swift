import DependencyFetcher
import Forge
import ForgeInject
import Foundation
import SwiftPod

// A scripted session of a small task-list app, wired with Forge containers:
// one per feature module (logging, analytics, auth, tasks) and a composition
// root that connects them.

func section(_ title: String) { print("\n== \(title)") }

// `forge-demo --graph mermaid|dot|json`: only the graph, for a renderer.
let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--graph" {
  guard printGraph(format: arguments[2]) else {
    print("forge-demo: --graph takes mermaid, dot or json")
    exit(2)
  }
  exit(0)
}

section("Wiring the modules")
CompositionRoot.wire()
print("  auth, tasks: proxies for logger, analytics and authService wired by the composition root")

section("Logging in")
let auth = AuthContainer.shared.authService
do {
  _ = try auth.logIn("ada", password: "babbage")
} catch {
  print("  login failed: \(error)")
}
let user = try auth.logIn("ada", password: "lovelace")

section("Working with tasks")
/// A screen that gets its dependencies injected on first use.
final class TaskScreen {
  @TasksInject(\.taskService) var service
  @TasksInject(\.taskList) var list
}
let screen = TaskScreen()
try screen.service.add("Write the engine")
try screen.service.add("Write the Forge dialect")
try screen.service.add("Ship the demo")
try screen.service.complete(1)
print("  \(user.name)'s list (view model built for \(screen.list.createdFor)):")
for line in try screen.list.render() { print("    \(line)") }

section("Archiving, with an archive that opens asynchronously")
let archive = try await archiveFinishedTasks()
print("  \(try screen.service.tasks().count) tasks awaited one archive; archived: \(archive.all)")

section("Analytics")
print("  events: \(AnalyticsContainer.shared.analytics.events.joined(separator: ", "))")

section("Logging out")
auth.logOut()
let oldList = TasksContainer.shared.taskList
TasksContainer.shared.resetCached()  // the session's view model goes; singletons stay
print("  cached view model rebuilt: \(TasksContainer.shared.taskList !== oldList)")
print(
  "  task store kept: \(TasksContainer.shared.taskStore as AnyObject === TasksContainer.shared.taskStore as AnyObject)")

section("A test, scoped to this task with withOverrides")
/// Records what it is asked to log instead of printing it.
final class SilentLogger: Logger {
  func log(_ module: String, _ message: String) {}
}
let testAuth = PasswordAuthService(passwords: ["grace": "hopper"], logger: SilentLogger())
_ = try testAuth.logIn("grace", password: "hopper")
try TasksContainer.shared.withOverrides {
  $0.override(\.authService) { testAuth }
  $0.override(\.logger) { SilentLogger() }
} run: {
  let service = TasksContainer.shared.taskService  // built from the overrides, kept only in this scope
  try service.add("Find the moth")
  print("  inside: grace sees \(try service.tasks().map(\.title))")
}
print("  outside: taskService is the real one again: \(TasksContainer.shared.taskService.tasksIfLoggedIn == nil)")

section("Rendering as an Xcode Preview would")
Forge.withPreviewMode {
  print("  preview view model built for: \(TasksContainer.shared.taskList.createdFor)")
}

section("Tracing what a resolution does")
// An observer hears every step; the tree printer shows a direct resolution
// as a tree once it is done. Cached instances go first, so the view model is
// built again, over the kept service and the composition root's proxies.
TasksContainer.shared.resetCached()
let tracing = TasksContainer.shared.addObserver(
  ResolutionTreePrinter { tree in
    for line in tree.split(separator: "\n") { print("  \(line)") }
  })
_ = TasksContainer.shared.taskList
TasksContainer.shared.removeObserver(tracing)

section("Reminders, wired with ForgeInject modules and @Injectable")
let reminderContainer = ForgeContainer()
AppDependencies().registerDependencies(in: reminderContainer)
ForgeContainer.shared = reminderContainer
let reminders = RemindersViewModel()
reminders.remind("Review the pull request")
reminders.remind("Stand-up")
print("  reminders: \(reminders.store.all)")
let clockBefore = try reminderContainer.resolve() as ReminderClock
reminderContainer.reset(preserving: [ReminderClock.self])  // logout: per-user state goes, the clock stays
let clockAfter = try reminderContainer.resolve() as ReminderClock
print("  after logout: reminders \(RemindersViewModel().store.all), clock kept: \(clockAfter === clockBefore)")

section("Sign-up, wired with SwiftPod providers and a custom scope")
let pod = SwiftPod()
let flow = SignUpFlow(pod: pod)
print("  rejects a bad email: \(!flow.enter(email: "grace", name: "Grace"))")
_ = flow.enter(email: "grace@navy.mil", name: "Grace")
let draftDuringFlow = pod.resolve(signUpDraftProvider)
print("  account #\(flow.finish()) created from: \(draftDuringFlow.summary)")
print("  draft cleared with SignUpScope: \(pod.resolve(signUpDraftProvider) !== draftDuringFlow)")
print("  account API kept (SingletonScope): \(pod.resolve(accountAPIProvider) === pod.resolve(accountAPIProvider))")

section("Sync, wired with DependencyFetcher services")
let fetcher = Fetcher.createDefault()
SyncEngine(fetcher: fetcher).sync(["Write the engine", "Ship the demo"])
print("  journal: \(fetcher.fetch(.journal).all)")
let offline = Fetcher.create().addOverride(for: Service.transport, instance: OfflineTransport()).done()
SyncEngine(fetcher: offline).sync(["Find the moth"])
print("  with the transport overridden: \(offline.fetch(.journal).all)")

section("Validating every module, and one wired wrong on purpose")
await validateEverything(reminders: reminderContainer, pod: pod, fetcher: fetcher)

section("The graph")
writeGraph()

section("Shutting down, dependents first")
let report = await TasksContainer.shared.shutdown()
print("  \(report)")

print("\nDone.")

extension TaskService {
  /// The tasks, or nil when nobody is logged in.
  var tasksIfLoggedIn: [TaskItem]? { try? tasks() }
}
