import DependencyFetcher
import ForgeTestSupport
import Testing

/// An async service over a synchronous one and another async one.
enum AsyncGraphServices {
  static let region = Service("region") { "eu" }
  static let inner = AsyncService("inner") { fetcher in
    await Task.yield()
    return "inner \(fetcher.fetch(region))"
  }
  static let outer = AsyncService("outer") { fetcher in
    let inner = try await fetcher.fetch(inner)
    // Fetched after an await: on whichever thread the task resumed.
    return "\(inner) + \(fetcher.fetch(region))"
  }
}

@Suite("DependencyFetcher: async services in graphs and traces", .timeLimit(.minutes(1)))
struct AsyncGraphTests {
  @Test("the graph has an edge to each service an async closure fetched, across awaits")
  func graphEdges() async throws {
    let fetcher = Fetcher.createDefault()
    #expect(try await fetcher.fetch(AsyncGraphServices.outer) == "inner eu + eu")
    let graph = fetcher.dependencyGraph()
    #expect(graph.dependencies(of: "outer", transitively: false).map(\.name) == ["inner", "region"])
    #expect(graph.dependencies(of: "inner", transitively: false).map(\.name) == ["region"])
    #expect(Set(graph.dependents(of: "region").map(\.name)) == ["outer", "inner"])
  }

  @Test("an observer hears an async build start and end, with what its closure fetched in between")
  func tracing() async throws {
    let fetcher = Fetcher.createDefault()
    let log = EventLog()
    let token = fetcher.addObserver(log)
    _ = try await fetcher.fetch(AsyncGraphServices.outer)
    #expect(
      log.lines == [
        "requested outer", "cacheHit outer", "requested outer",
        "requested inner ← outer", "cacheHit inner ← outer", "requested inner ← outer",
        "requested region ← outer ← inner", "built region ← outer ← inner", "built inner ← outer",
        "requested region ← outer", "cacheHit region ← outer", "built outer",
      ])
    fetcher.removeObserver(token)
  }
}
