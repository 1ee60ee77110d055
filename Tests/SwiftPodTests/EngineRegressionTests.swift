import SwiftPod
import Testing

let podBarrier = Barrier(2)
let leftPod = SwiftPod()
let rightPod = SwiftPod()
let leftProvider: Provider<Thing> = Provider("left") { _ in
  podBarrier.arrive()
  return Thing("left of \(rightPod.resolve(rightProvider).label)")
}
let rightProvider: Provider<Thing> = Provider("right") { _ in
  podBarrier.arrive()
  return Thing("right of \(leftPod.resolve(leftProvider).label)")
}

@Suite("SwiftPod: the engine's regressions", .timeLimit(.minutes(1)))
struct SwiftPodEngineRegressionTests {
  @Test("two threads closing a cycle across two pods stop with its path instead of hanging")
  func crossPodCycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = RealThread { _ = leftPod.resolve(leftProvider) }
      _ = RealThread { _ = rightPod.resolve(rightProvider) }
      exitIfStillRunning(after: 20)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("Dependency cycle: "))
    #expect(stderr.contains("left → right") || stderr.contains("right → left"))
    #expect(!beforeBacktrace(stderr).contains("hang"))
  }

  @Test("clearCachedInstances(forScope:) while the scope's instance is being built: it is not kept")
  func clearDuringBuild() {
    let pod = SwiftPod()
    let started = Signal()
    let proceed = Signal()
    let builds = Counter()
    let draft = Provider(scope: SignUpScope()) { _ in
      builds.increment()
      if builds.count == 1 {
        started.raise()
        proceed.wait()
      }
      return Thing("draft \(builds.count)")
    }
    let builder = RealThread { _ = pod.resolve(draft) }
    started.wait()
    pod.clearCachedInstances(forScope: SignUpScope())
    proceed.raise()
    builder.join()
    #expect(pod.resolve(draft).label == "draft 2")
    #expect(pod.resolve(draft).label == "draft 2")
  }

  @Test(
    "a transient provider the pod knows builds every time, yields to a later override, and is recorded inside a build"
  )
  func knownTransient() {
    let pod = SwiftPod()
    let builds = Counter()
    let validator = Provider("validator", scope: AlwaysCreateNewScope()) { _ in
      builds.increment()
      return Thing("real \(builds.count)")
    }
    let form = Provider("form", scope: AlwaysCreateNewScope()) { pod in
      Thing("form over \(pod.resolve(validator).label)")
    }
    // Known after the first resolution: the later ones take the known slot.
    #expect(pod.resolve(validator).label == "real 1")
    #expect(pod.resolve(validator).label == "real 2")
    #expect(pod.resolve(form).label == "form over real 3")
    #expect(pod.dependencyGraph().dependencies(of: "form").map(\.name) == ["validator"])
    pod.overrideProvider(validator) { _ in Thing("mock") }
    #expect(pod.resolve(validator).label == "mock")
    #expect(pod.resolve(form).label == "form over mock")
    pod.removeOverrideProvider(validator)
    #expect(pod.resolve(validator).label == "real 4")
    #expect(builds.count == 4)
  }
}
