import ForgeTestSupport
import SwiftPod
import Testing

@Suite("SwiftPod: tracing", .timeLimit(.minutes(1)))
struct TracingTests {
  final class Log: ResolutionObserver {
    let lines = Guarded<[String]>([])
    func resolution(_ event: ResolutionEvent) {
      lines.withLock { $0.append("\(event.kind.label) \(event.dependency) \(event.chain)") }
    }
  }

  @Test("events in order for a nested resolution; none after removal")
  func events() {
    let pod = SwiftPod()
    let log = Log()
    let token = pod.addObserver(log)
    _ = pod.resolve(GraphProviders.form)
    _ = pod.resolve(GraphProviders.api)
    #expect(
      log.lines.withLock { $0 } == [
        "requested form []", "requested api [\"form\"]", "built api [\"form\"]",
        "requested validator [\"form\"]", "built validator [\"form\"]", "built form []",
        "requested api []", "cacheHit api []",
      ])
    pod.removeObserver(token)
    _ = pod.resolve(GraphProviders.form)
    #expect(log.lines.withLock { $0.count } == 8)
  }
}
