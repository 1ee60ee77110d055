import ForgeTestSupport
import SwiftPod
import Testing

@Suite("SwiftPod and shutdown()", .timeLimit(.minutes(1)))
struct ShutdownTests {
  @Test("scoped and singleton instances shut down, dependents first")
  func order() async {
    let log = Guarded<[String]>([])
    let engine = Provider("engine") { _ in StoppablePart("engine", log: log) }
    let car = Provider("car", scope: GraphProviders.FormScope()) { pod in
      StoppablePart("car", log: log, [pod.resolve(engine)])
    }
    let pod = SwiftPod()
    _ = pod.resolve(car)
    let report = await pod.shutdown()
    #expect(report.stopped == ["car", "engine"])
    #expect(log.withLock { $0 } == ["car", "engine"])
  }

  @Test("an override's kept instance shuts down with the pod's, dependents first")
  func overrideInstance() async {
    let log = Guarded<[String]>([])
    let engine = Provider("engine") { _ in StoppablePart("engine", log: log) }
    let car = Provider("car") { pod in StoppablePart("car", log: log, [pod.resolve(engine)]) }
    let pod = SwiftPod()
    pod.overrideProvider(engine) { _ in StoppablePart("test engine", log: log) }
    _ = pod.resolve(car)
    let report = await pod.shutdown()
    #expect(report.stopped == ["car", "engine (override)"])
    #expect(log.withLock { $0 } == ["car", "test engine"])
  }
}
