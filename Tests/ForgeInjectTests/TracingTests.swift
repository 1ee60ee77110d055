import ForgeInject
import ForgeTestSupport
import Testing

@Suite("ForgeInject: tracing", .timeLimit(.minutes(1)))
struct TracingTests {
  @Test("a failed resolution is reported with its chain; none after removal")
  func failure() {
    let container = Broken.container()
    let events = Guarded<[ResolutionEvent]>([])
    final class Log: ResolutionObserver {
      let sink: @Sendable (ResolutionEvent) -> Void
      init(_ sink: @escaping @Sendable (ResolutionEvent) -> Void) { self.sink = sink }
      func resolution(_ event: ResolutionEvent) { sink(event) }
    }
    let token = container.addObserver(Log { event in events.withLock { $0.append(event) } })
    #expect(throws: (any Error).self) { _ = try container.resolve() as Broken.A }
    let seen = events.withLock { $0 }
    #expect(seen.first == ResolutionEvent(kind: .requested, dependency: "ForgeInjectTests.Broken.A", chain: []))
    #expect(seen.contains { if case .failed = $0.kind { $0.dependency == "ForgeInjectTests.Broken.A" } else { false } })
    container.removeObserver(token)
    let count = seen.count
    _ = try? container.resolve() as Broken.A
    #expect(events.withLock { $0.count } == count)
  }
}
