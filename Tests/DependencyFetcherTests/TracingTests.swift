import DependencyFetcher
import ForgeTestSupport
import Testing

@Suite("DependencyFetcher: tracing", .timeLimit(.minutes(1)))
struct TracingTests {
  @Test("events in order for a nested fetch, an override reported as such; none after removal")
  func events() {
    let fetcher = Fetcher.create().addOverride(for: .graphEndpoint, instance: GraphServices.Endpoint()).done()
    let lines = Guarded<[String]>([])
    let printer = ResolutionTreePrinter { text in lines.withLock { $0.append(text) } }
    let token = fetcher.addObserver(printer)
    _ = fetcher.fetch(.graphRepository)
    let tree = lines.withLock { $0 }.joined().split(separator: "\n").map { String($0) }
    #expect(tree.count == 3)
    #expect(tree.first?.hasPrefix("repository — built in ") == true)
    #expect(tree.dropFirst().first?.hasPrefix("  logger — built in ") == true)
    #expect(tree.last == "  endpoint — overridden")
    fetcher.removeObserver(token)
    _ = fetcher.fetch(.graphRepository)
    #expect(lines.withLock { $0.count } == 1)
  }
}
