import ForgeTestSupport
import SwiftPod
import Testing

/// An async provider over a synchronous one and another async one.
enum AsyncGraphProviders {
  static let region = Provider("region") { _ in "eu" }
  static let inner = AsyncProvider("inner") { pod in
    await Task.yield()
    return "inner \(pod.resolve(region))"
  }
  static let outer = AsyncProvider("outer") { pod in
    let inner = try await pod.resolve(inner)
    // Read after an await: on whichever thread the task resumed.
    return "\(inner) + \(pod.resolve(region))"
  }
}

@Suite("SwiftPod: async providers in graphs and traces", .timeLimit(.minutes(1)))
struct AsyncGraphTests {
  @Test("the graph has an edge to each provider an async builder resolved, across awaits")
  func graphEdges() async throws {
    let pod = SwiftPod()
    #expect(try await pod.resolve(AsyncGraphProviders.outer) == "inner eu + eu")
    let graph = pod.dependencyGraph()
    #expect(graph.dependencies(of: "outer", transitively: false).map(\.name) == ["inner", "region"])
    #expect(graph.dependencies(of: "inner", transitively: false).map(\.name) == ["region"])
    #expect(Set(graph.dependents(of: "region").map(\.name)) == ["outer", "inner"])
  }

  @Test("an observer hears an async build start and end, with what its builder resolved in between")
  func tracing() async throws {
    let pod = SwiftPod()
    let log = EventLog()
    let token = pod.addObserver(log)
    _ = try await pod.resolve(AsyncGraphProviders.outer)
    #expect(
      log.lines == [
        "requested outer", "cacheHit outer", "requested outer",
        "requested inner ← outer", "cacheHit inner ← outer", "requested inner ← outer",
        "requested region ← outer ← inner", "built region ← outer ← inner", "built inner ← outer",
        "requested region ← outer", "cacheHit region ← outer", "built outer",
      ])
    pod.removeObserver(token)
  }
}
