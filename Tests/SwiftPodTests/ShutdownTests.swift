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

  @Test("shutdown() waits for an override's build in progress on another thread, and stops what it builds")
  func waitsForOverrideBuild() async {
    let log = Guarded<[String]>([])
    let started = Signal()
    let release = Signal()
    let engine = Provider("engine") { _ in StoppablePart("engine", log: log) }
    let pod = SwiftPod()
    pod.overrideProvider(engine) { _ in
      started.raise()
      release.wait()
      return StoppablePart("slow engine", log: log)
    }
    let thread = RealThread { _ = pod.resolve(engine) }
    #expect(started.wait())
    let (shutdown, returnedEarly) = await shutdownInBackground(pod)
    #expect(!returnedEarly, "shutdown() returned while the override's build was in progress")
    release.raise()
    let report = await shutdown.value
    thread.join()
    #expect(report.stopped == ["engine (override)"])
    #expect(log.withLock { $0 } == ["slow engine"])
  }
}
