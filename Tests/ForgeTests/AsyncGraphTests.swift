import Forge
import ForgeTestSupport
import Testing

/// An async singleton over a synchronous dependency and another async one,
/// with an unrelated dependency beside them.
final class AsyncGraphContainer: Container, @unchecked Sendable {
  let builds = Counter()
  let innerBuilds = Counter()

  var region: String { provide(.singleton) { "eu" } }
  var unrelated: String { provide { "unrelated" } }
  var inner: AsyncDependency<String> {
    provide(.singleton) {
      self.innerBuilds.increment()
      await Task.yield()
      return "inner \(self.region)"
    }
  }
  var outer: AsyncDependency<String> {
    provide(.singleton) {
      self.builds.increment()
      let inner = try await self.inner.value
      // Read after an await: on whichever thread the task resumed.
      return "\(inner) + \(self.region)"
    }
  }
  var failing: AsyncDependency<String> {
    provide(.singleton) { () async throws -> String in
      _ = self.region
      throw AsyncFactory.Failed()
    }
  }
}

/// A cached async dependency whose second build reads what its first did
/// not.
final class ChangingReadsContainer: Container, @unchecked Sendable {
  let builds = Counter()
  var flag: String { provide { "real" } }
  var probe: AsyncDependency<String> {
    provide(.cached) {
      self.builds.incremented() == 1 ? "first" : self.flag
    }
  }
}

@Suite("Forge: async dependencies in graphs, traces and override scopes", .timeLimit(.minutes(1)))
struct AsyncGraphTests {
  @Test("an async dependency's node has its instance's type, not its handle's")
  func nodeType() async throws {
    let container = AsyncGraphContainer()
    _ = try await container.outer.value
    let graph = container.dependencyGraph()
    #expect(graph.node(named: "AsyncGraphContainer.outer")?.type == "Swift.String")
    #expect(graph.node(named: "AsyncGraphContainer.region")?.type == "Swift.String")
    #expect(!graph.dot.contains("AsyncDependency"))
    // A main-actor dependency's too.
    let onMain = MainActorContainer()
    _ = await onMain.settings.value
    #expect(onMain.dependencyGraph().node(named: "MainActorContainer.settings")?.type == "ForgeTests.SettingsModel")
  }

  @Test("the graph has an edge to each dependency an async factory resolved, across awaits")
  func graphEdges() async throws {
    let container = AsyncGraphContainer()
    _ = try await container.outer.value
    let graph = container.dependencyGraph()
    #expect(
      graph.dependencies(of: "AsyncGraphContainer.outer", transitively: false).map(\.name) == [
        "AsyncGraphContainer.inner", "AsyncGraphContainer.region",
      ])
    #expect(
      graph.dependencies(of: "AsyncGraphContainer.inner", transitively: false).map(\.name) == [
        "AsyncGraphContainer.region"
      ])
    #expect(
      Set(graph.dependents(of: "AsyncGraphContainer.region").map(\.name)) == [
        "AsyncGraphContainer.outer", "AsyncGraphContainer.inner",
      ])
    #expect(graph.node(named: "AsyncGraphContainer.outer")?.lifetime == "singleton")
  }

  @Test("an observer hears an async build start and end, with what its factory resolved in between")
  func tracing() async throws {
    let container = AsyncGraphContainer()
    let log = EventLog()
    let token = container.addObserver(log)
    _ = try await container.outer.value
    #expect(
      log.lines == [
        "requested AsyncGraphContainer.outer",
        "cacheHit AsyncGraphContainer.outer",
        "requested AsyncGraphContainer.outer",
        "requested AsyncGraphContainer.inner ← AsyncGraphContainer.outer",
        "cacheHit AsyncGraphContainer.inner ← AsyncGraphContainer.outer",
        "requested AsyncGraphContainer.inner ← AsyncGraphContainer.outer",
        "requested AsyncGraphContainer.region ← AsyncGraphContainer.outer ← AsyncGraphContainer.inner",
        "built AsyncGraphContainer.region ← AsyncGraphContainer.outer ← AsyncGraphContainer.inner",
        "built AsyncGraphContainer.inner ← AsyncGraphContainer.outer",
        "requested AsyncGraphContainer.region ← AsyncGraphContainer.outer",
        "cacheHit AsyncGraphContainer.region ← AsyncGraphContainer.outer",
        "built AsyncGraphContainer.outer",
      ])
    _ = try? await container.failing.value
    #expect(log.lines.last?.hasPrefix("failed AsyncGraphContainer.failing") == true)
    container.removeObserver(token)
  }

  @Test("the tree printer puts an async build under the build that awaited it, across tasks")
  func treePrinter() async throws {
    let container = AsyncGraphContainer()
    let printed = Guarded<[String]>([])
    let token = container.addObserver(ResolutionTreePrinter { text in printed.withLock { $0.append(text) } })
    _ = try await container.outer.value
    _ = try await container.outer.value
    container.removeObserver(token)
    // Durations vary: "built in 41µs" is read as "built".
    let trees = printed.withLock { $0 }.map { tree in
      tree.split(separator: "\n").map { line in
        line.firstRange(of: " — built in ").map { String(line[..<$0.lowerBound]) + " — built" } ?? String(line)
      }
    }
    #expect(
      trees == [
        // The handle, then its build, in the task the build runs in.
        ["AsyncGraphContainer.outer — cached"],
        [
          "AsyncGraphContainer.outer — built",
          "  AsyncGraphContainer.inner — built",
          "    AsyncGraphContainer.region — built",
          "  AsyncGraphContainer.region — cached",
        ],
        // The hit reads the kept instance: the handle's line alone.
        ["AsyncGraphContainer.outer — cached"],
      ])
  }

  @Test("an override scope rebuilds an async singleton only when its overrides reach it")
  func scopeReach() async throws {
    let container = AsyncGraphContainer()
    #expect(try await container.outer.value == "inner eu + eu")
    #expect(container.builds.count == 1)
    // The scope overrides nothing the build read: the container's instance.
    let unrelated = try await container.withOverrides {
      $0.override(\.unrelated) { "other" }
    } run: {
      try await container.outer.value
    }
    #expect(unrelated == "inner eu + eu")
    #expect(container.builds.count == 1)
    // The scope overrides what both builds read: both are built for it.
    let reached = try await container.withOverrides {
      $0.override(\.region) { "us" }
    } run: {
      try await container.outer.value
    }
    #expect(reached == "inner us + us")
    #expect(container.builds.count == 2)
    #expect(container.innerBuilds.count == 2)
    // The container's instance is untouched.
    #expect(try await container.outer.value == "inner eu + eu")
  }

  @Test("a nested scope that overrides nothing the build read uses the outer scope's instance")
  func nestedScope() async throws {
    let container = AsyncGraphContainer()
    _ = try await container.outer.value
    try await container.withOverrides {
      $0.override(\.region) { "us" }
    } run: {
      let outer = try await container.outer.value
      let nested = try await container.withOverrides {
        $0.override(\.unrelated) { "other" }
      } run: {
        try await container.outer.value
      }
      #expect(outer == "inner us + us")
      #expect(nested == outer)
    }
    #expect(container.builds.count == 2)
  }

  @Test("the container's build, started from a scope its last build did not reach, does not see that scope")
  func containerBuildOutsideScope() async throws {
    let container = ChangingReadsContainer()
    #expect(try await container.probe.value == "first")  // read nothing
    container.resetCached()
    let inScope = try await container.withOverrides {
      $0.override(\.flag) { "mock" }
    } run: {
      try await container.probe.value
    }
    // The scope did not reach the last build, so the container's instance
    // served it, built from the real flag; the mock never reached the
    // container.
    #expect(inScope == "real")
    #expect(try await container.probe.value == "real")
    #expect(container.builds.count == 2)
  }
}
