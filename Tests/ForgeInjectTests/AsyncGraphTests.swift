import ForgeInject
import ForgeTestSupport
import Testing

/// Distinct types: each registration is keyed by its type.
struct AsyncRegion: Sendable { let name: String }
struct AsyncInner: Sendable { let text: String }
struct AsyncOuter: Sendable { let text: String }

@Suite("ForgeInject: async builders in graphs and traces", .timeLimit(.minutes(1)))
struct AsyncGraphTests {
  /// An async singleton over a synchronous one and another async one.
  private func container() -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in AsyncRegion(name: "eu") }
    container.register(with: .singleton) { c async throws in
      await Task.yield()
      let region: AsyncRegion = try c.resolve()
      return AsyncInner(text: "inner \(region.name)")
    }
    container.register(with: .singleton) { c async throws in
      let inner: AsyncInner = try await c.resolveAsync()
      // Resolved after an await: on whichever thread the task resumed.
      let region: AsyncRegion = try c.resolve()
      return AsyncOuter(text: "\(inner.text) + \(region.name)")
    }
    return container
  }

  @Test("the graph has an edge to each type an async builder resolved, across awaits")
  func graphEdges() async throws {
    let container = container()
    #expect(try await container.resolveAsync(AsyncOuter.self).text == "inner eu + eu")
    let graph = container.dependencyGraph()
    let outer = "ForgeInjectTests.AsyncOuter"
    let inner = "ForgeInjectTests.AsyncInner"
    let region = "ForgeInjectTests.AsyncRegion"
    #expect(graph.dependencies(of: outer, transitively: false).map(\.name) == [inner, region])
    #expect(graph.dependencies(of: inner, transitively: false).map(\.name) == [region])
    #expect(Set(graph.dependents(of: region).map(\.name)) == [outer, inner])
  }

  @Test("an observer hears an async build start and end, with what its builder resolved in between")
  func tracing() async throws {
    let container = container()
    let log = EventLog()
    let token = container.addObserver(log)
    _ = try await container.resolveAsync(AsyncOuter.self)
    let events = log.lines.map { $0.replacingOccurrences(of: "ForgeInjectTests.Async", with: "") }
    #expect(
      events == [
        "requested Outer", "cacheHit Outer", "requested Outer",
        "requested Inner ← Outer", "cacheHit Inner ← Outer", "requested Inner ← Outer",
        "requested Region ← Outer ← Inner", "built Region ← Outer ← Inner", "built Inner ← Outer",
        "requested Region ← Outer", "cacheHit Region ← Outer", "built Outer",
      ])
    container.removeObserver(token)
  }
}
