import Forge
import ForgeTestSupport
import Foundation
import Testing

@Suite("Forge: tracing", .timeLimit(.minutes(1)))
struct TracingTests {
  @Test("a nested resolution's events come in order, each with the chain that led to it")
  func nestedOrder() {
    let container = GraphContainer()
    _ = container.clock
    let log = EventLog()
    container.addObserver(log)
    _ = container.viewModel
    #expect(
      log.lines == [
        "requested GraphContainer.viewModel",
        "requested GraphContainer.api ← GraphContainer.viewModel",
        "requested GraphContainer.network ← GraphContainer.viewModel ← GraphContainer.api",
        "built GraphContainer.network ← GraphContainer.viewModel ← GraphContainer.api",
        "built GraphContainer.api ← GraphContainer.viewModel",
        "requested GraphContainer.clock ← GraphContainer.viewModel",
        "cacheHit GraphContainer.clock ← GraphContainer.viewModel",
        "built GraphContainer.viewModel",
      ])
  }

  @Test("overrides are reported as such; removing the observer stops the events")
  func overridesAndRemoval() {
    let container = GraphContainer()
    let log = EventLog()
    let token = container.addObserver(log)
    container.override(\.clock) { GraphContainer.Clock() }
    let before = log.lines.count
    _ = container.clock
    #expect(Array(log.lines[before...]) == ["requested GraphContainer.clock", "overrideUsed GraphContainer.clock"])
    container.removeObserver(token)
    let count = log.lines.count
    _ = container.clock
    _ = container.viewModel
    #expect(log.lines.count == count)
  }

  @Test("the tree printer prints each direct resolution as an indented tree")
  func treePrinter() {
    let container = GraphContainer()
    _ = container.clock
    let printed = Guarded<[String]>([])
    container.addObserver(ResolutionTreePrinter { text in printed.withLock { $0.append(text) } })
    _ = container.viewModel
    let tree = printed.withLock { $0 }
    #expect(tree.count == 1)
    let lines = tree.first?.split(separator: "\n").map { String($0) } ?? []
    #expect(lines.count == 4)
    #expect(lines.first?.hasPrefix("GraphContainer.viewModel — built in ") == true)
    #expect(lines.dropFirst().first?.hasPrefix("  GraphContainer.api — built in ") == true)
    #expect(lines.dropFirst(2).first?.hasPrefix("    GraphContainer.network — built in ") == true)
    #expect(lines.last == "  GraphContainer.clock — cached")
  }

  @Test("resolutions on several threads at once each print a whole tree of their own")
  func treePrinterOnThreads() {
    let container = GraphContainer()
    _ = container.clock
    let printed = Guarded<[String]>([])
    container.addObserver(ResolutionTreePrinter { text in printed.withLock { $0.append(text) } })
    onThreads(8) { _ in
      for _ in 0..<50 { _ = container.viewModel }
    }
    let trees = printed.withLock { $0 }
    #expect(trees.count == 400)
    // Each tree is one resolution's, whole: the api is built under it
    // (with its network) or, kept already, cached.
    let malformed = trees.filter { tree in
      let lines = tree.split(separator: "\n").map(String.init)
      let api = lines.dropFirst().dropLast()
      return lines.count < 3 || !lines[0].hasPrefix("GraphContainer.viewModel — built in ")
        || lines.last != "  GraphContainer.clock — cached"
        || !(api == ["  GraphContainer.api — cached"]
          || (api.count == 2 && api.first!.hasPrefix("  GraphContainer.api — built in ")
            && api.last!.hasPrefix("    GraphContainer.network — ")))
    }
    #expect(malformed.isEmpty, "\(malformed.prefix(3))")
  }

  @Test("the slow-build reporter reports builds over its threshold only")
  func slowBuilds() {
    final class SlowContainer: Container, @unchecked Sendable {
      var slow: Service {
        provide(.singleton) {
          Thread.sleep(forTimeInterval: 0.02)
          return Service("slow")
        }
      }
      var fast: [Service] { provide { [self.slow] } }
    }
    let container = SlowContainer()
    let reports = Guarded<[String]>([])
    container.addObserver(
      SlowBuildReporter(threshold: .milliseconds(10)) { line in reports.withLock { $0.append(line) } })
    _ = container.fast
    let lines = reports.withLock { $0 }
    #expect(lines.count == 2)  // slow, and fast which includes it
    #expect(lines.first?.hasPrefix("Slow build: SlowContainer.slow took ") == true)
    #expect(lines.first?.hasSuffix("ms (chain: SlowContainer.fast)") == true)
  }

  @Test("observers come and go from any thread while others resolve, and every resolution stays right")
  func concurrentInstall() async {
    let container = GraphContainer()
    let network = container.network
    let done = Guarded(false)
    let readers = (0..<4).map { _ in
      let thread = Thread {
        while !done.withLock({ $0 }) {
          precondition(container.network === network)
          _ = container.viewModel
        }
      }
      thread.start()
      return thread
    }
    for _ in 0..<200 {
      let log = EventLog()
      let token = container.addObserver(log)
      _ = container.api
      container.removeObserver(token)
      #expect(log.lines.contains("requested GraphContainer.api"))
    }
    done.withLock { $0 = true }
    while readers.contains(where: { !$0.isFinished }) { try? await Task.sleep(for: .milliseconds(5)) }
    #expect(container.network === network)
  }
}

/// A container with a dependency overridden before anything read it: its
/// key read stays parked, which holds the container's reads on the general
/// path with no observer of its own.
final class HeldContainer: Container, @unchecked Sendable {
  var clock: GraphContainer.Clock { provide(.singleton) { GraphContainer.Clock() } }
  var neverRead: Int { provide(.singleton) { 0 } }
}

final class ObservedOuterContainer: Container, @unchecked Sendable {
  let held: HeldContainer
  init(held: HeldContainer) {
    self.held = held
    super.init()
  }
  var thing: GraphContainer.Clock { provide(.singleton) { GraphContainer.Clock() } }
}

@Suite("Forge: tracing beside a parked key read", .timeLimit(.minutes(1)))
struct ParkedReadTracingTests {
  @Test("a container held on the general path by a parked key read still tells its observers")
  func heldContainerTells() {
    let held = HeldContainer()
    held.override(\.neverRead) { 1 }
    let log = EventLog()
    held.addObserver(log)
    _ = held.clock
    _ = held.clock
    #expect(
      log.lines == [
        "requested HeldContainer.clock", "built HeldContainer.clock",
        "requested HeldContainer.clock", "cacheHit HeldContainer.clock",
      ])
  }

  @Test("a held container with no observer leaves an observed resolution around it reported as it was served")
  func heldInsideObserved() {
    let held = HeldContainer()
    held.override(\.neverRead) { 1 }
    let outer = ObservedOuterContainer(held: held)
    _ = outer.thing
    outer.override(\.thing) { held.clock }
    let log = EventLog()
    outer.addObserver(log)
    _ = outer.thing
    #expect(log.lines == ["requested ObservedOuterContainer.thing", "overrideUsed ObservedOuterContainer.thing"])
  }
}
