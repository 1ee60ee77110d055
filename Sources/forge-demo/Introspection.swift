import DependencyFetcher
import Forge
import ForgeInject
import Foundation
import SwiftPod

// Seeing the graph: what the tasks module resolved, the validation reports of
// every module, and one module wired wrong on purpose, with one problem of
// each kind validation finds.

/// The tasks module's graph, after a resolution of its view model.
func tasksGraph() -> DependencyGraph {
  _ = TasksContainer.shared.taskList
  return TasksContainer.shared.dependencyGraph()
}

/// `forge-demo --graph mermaid|dot|json` prints the tasks module's graph and
/// nothing else, for piping into a renderer: `swift run forge-demo --graph dot | dot -Tsvg > graph.svg`.
func printGraph(format: String) -> Bool {
  CompositionRoot.wire()
  let graph = tasksGraph()
  switch format {
  case "mermaid": print(graph.mermaid, terminator: "")
  case "dot": print(graph.dot, terminator: "")
  case "json": print(graph.json, terminator: "")
  default: return false
  }
  return true
}

// MARK: A module wired wrong on purpose

/// An archive that needs a database nobody registers.
final class Archive: Sendable {
  init(database: ArchiveDatabase) {}
}
final class ArchiveDatabase: Sendable {}
/// Registered as the concrete type, resolved as the protocol.
protocol Exporter: Sendable {}
final class PDFExporter: Exporter {}
final class ExportQueue: Sendable {
  init(exporter: any Exporter) {}
}
/// Two services that need each other.
final class Inbox: Sendable {
  init(outbox: Outbox) {}
}
final class Outbox: Sendable {
  init(inbox: Inbox) {}
}
/// A builder that throws.
struct KeychainLocked: Error {}
final class Keychain: Sendable {}
/// A singleton holding a weakly kept cache: a captive dependency.
final class ThumbnailCache: Sendable {}
final class Gallery: Sendable {
  init(cache: ThumbnailCache) {}
}

/// One of each problem `validate()` reports.
func brokenModule() -> ForgeContainer {
  let container = ForgeContainer()
  container.register { c in Archive(database: try c.resolve()) }
  container.register(with: .singleton) { _ in PDFExporter() }
  container.register { c in ExportQueue(exporter: try c.resolve()) }
  container.register { c in Inbox(outbox: try c.resolve()) }
  container.register { c in Outbox(inbox: try c.resolve()) }
  container.register { _ -> Keychain in throw KeychainLocked() }
  container.register(with: .weak) { _ in ThumbnailCache() }
  container.register(with: .singleton) { c in Gallery(cache: try c.resolve()) }
  return container
}

/// Prints a report indented under its title.
func show(_ title: String, _ report: ValidationReport) {
  print("  \(title): \(report.description.split(separator: "\n").first ?? "")")
  for problem in report.problems { print("    - \(problem)") }
}

func validateEverything(reminders: ForgeContainer, pod: SwiftPod, fetcher: Fetcher) async {
  show("tasks (Forge)", TasksContainer.shared.validate(\.taskList, \.taskService))
  // The archive opens asynchronously: validateAsync awaits it (opening one
  // of the check's own) and checks what it resolves.
  show("the tasks' archive (Forge, async)", await TasksContainer.shared.validateAsync(\.archive))
  show("reminders (ForgeInject)", reminders.validate())
  show("sign-up (SwiftPod)", pod.validate(signUpDraftProvider, accountAPIProvider, emailValidatorProvider))
  show("sync (DependencyFetcher)", fetcher.validate(Service.journal, Service.transport))
  let broken = brokenModule().validate()
  show("a module wired wrong on purpose (ForgeInject)", broken)
  print("  its graph, failing nodes red and their dependents orange:")
  for line in broken.graph.mermaid.split(separator: "\n") { print("    \(line)") }
}

/// Writes the tasks module's graph in the three formats to a temporary
/// directory and says how to render it.
func writeGraph() {
  let graph = tasksGraph()
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("forge-demo")
  do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, text) in [("graph.mmd", graph.mermaid), ("graph.dot", graph.dot), ("graph.json", graph.json)] {
      try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    print("  the tasks module's graph (\(graph.nodes.count) dependencies) is in \(directory.path)/graph.{mmd,dot,json}")
    print("  render it with: dot -Tsvg \(directory.path)/graph.dot -o graph.svg")
  } catch {
    print("  could not write the graph: \(error)")
  }
}
