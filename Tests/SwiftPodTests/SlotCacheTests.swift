import ForgeTestSupport
import SwiftPod
import Testing

@Suite("SwiftPod: a provider's cached slot serves its own pod only", .timeLimit(.minutes(1)))
struct SlotCacheTests {
  @Test("pods that take turns with one provider, sync and async, each keep their own instance")
  func podsTakeTurns() async {
    // In a process of its own: a parallel test's scope would send every
    // read to the lock, and the cache is filled and read without it.
    await #expect(processExitsWith: .success) {
      let provider = Provider { _ in Thing() }
      let asyncProvider = AsyncProvider { _ in Thing() }
      let first = SwiftPod()
      let (firstThing, firstAsync) = (first.resolve(provider), try await first.resolve(asyncProvider))
      for round in 0..<100 {
        // Each pod, once the one whose read cached the slot is gone too,
        // is one the cache must not serve.
        let pod = SwiftPod()
        let (thing, asyncThing) = (pod.resolve(provider), try await pod.resolve(asyncProvider))
        for _ in 0..<3 {
          let (again, asyncAgain) = (pod.resolve(provider), try await pod.resolve(asyncProvider))
          precondition(again === thing && asyncAgain === asyncThing, "round \(round): another pod's instance")
          let (firstAgain, firstAsyncAgain) = (first.resolve(provider), try await first.resolve(asyncProvider))
          precondition(firstAgain === firstThing && firstAsyncAgain === firstAsync, "round \(round): the first's lost")
        }
        precondition(thing !== firstThing && asyncThing !== firstAsync, "round \(round): shared an instance")
      }
    }
  }

  @Test("an overridden pod serves its override, and its own instances of the rest, whichever pod a provider caches")
  func overriddenPods() async {
    // In a process of its own, as above: the overridden read takes the
    // provider's cached slot only when no scope is live anywhere.
    await #expect(processExitsWith: .success) {
      let overridden = Provider { _ in Thing("real") }
      let plain = Provider { _ in Thing("plain") }
      let transient = Provider(scope: AlwaysCreateNewScope()) { _ in Thing("transient") }
      // The providers cache the first pod's slots: the second pod finds its
      // own through its table.
      let first = SwiftPod()
      let (firstReal, firstPlain) = (first.resolve(overridden), first.resolve(plain))
      _ = first.resolve(transient)
      for pod in [SwiftPod(), first] {
        let own = pod.resolve(plain)
        let mock = Thing("mock")
        pod.overrideProvider(overridden) { _ in mock }
        for _ in 0..<3 {
          precondition(pod.resolve(overridden) === mock, "the override was not served")
          precondition(pod.resolve(plain) === own, "a provider not overridden lost its instance")
          precondition(pod.resolve(transient).label == "transient")
        }
        pod.removeOverrideProvider(overridden)
        precondition(pod.resolve(overridden).label == "real", "the override outlived its removal")
      }
      precondition(first.resolve(overridden) === firstReal && first.resolve(plain) === firstPlain)
    }
  }

  @Test("when the pod whose read cached a provider's slot goes, a pod still reading it keeps its own instance")
  func cacheMovesOn() async {
    await #expect(processExitsWith: .success) {
      let provider = Provider { _ in Thing() }
      let asyncProvider = AsyncProvider { _ in Thing() }
      // A short-lived pod (a test's, a tool's) reads first and caches
      // the slot; the app's pod reads the table meanwhile, then takes the
      // cache over once the short-lived one is gone.
      let app = SwiftPod()
      var appThings: (Thing, Thing)?
      for round in 0..<100 {
        let shortLived = SwiftPod()
        let (thing, asyncThing) = (shortLived.resolve(provider), try await shortLived.resolve(asyncProvider))
        let (again, asyncAgain) = (shortLived.resolve(provider), try await shortLived.resolve(asyncProvider))
        precondition(again === thing && asyncAgain === asyncThing, "round \(round): the short-lived pod's lost")
        let (appThing, appAsync) = (app.resolve(provider), try await app.resolve(asyncProvider))
        if let appThings {
          precondition(appThing === appThings.0 && appAsync === appThings.1, "round \(round): the app pod's lost")
        }
        precondition(appThing !== thing && appAsync !== asyncThing, "round \(round): shared an instance")
        appThings = (appThing, appAsync)
      }
      // The last short-lived pod is gone: reads in the app's pod, first
      // through the table and then through the cache, serve its own.
      for _ in 0..<3 {
        precondition(app.resolve(provider) === appThings?.0, "the app pod's instance was lost")
        let asyncAgain = try await app.resolve(asyncProvider)
        precondition(asyncAgain === appThings?.1, "the app pod's async instance was lost")
      }
    }
  }

  @Test("a transient provider is built once per resolution through its cached slot, a nil instance too")
  func transientThroughTheCachedSlot() async {
    // In a process of its own: a parallel test's scope would send every
    // read to the lock, and the transient's quick build is lock-free.
    await #expect(processExitsWith: .success) {
      let builds = Counter()
      let things = Provider(scope: AlwaysCreateNewScope()) { _ in
        builds.increment()
        return Thing()
      }
      let nothings = Provider<Thing?>(scope: AlwaysCreateNewScope()) { _ in
        builds.increment()
        return nil
      }
      let pod = SwiftPod()
      var seen: [Thing] = []  // kept, so that no two share an address
      for round in 1...20 {
        seen.append(pod.resolve(things))
        precondition(pod.resolve(nothings) == nil, "round \(round): a nil transient came back as an instance")
        precondition(builds.count == 2 * round, "round \(round): \(builds.count) builds, not \(2 * round)")
      }
      precondition(Set(seen.map(ObjectIdentifier.init)).count == 20, "a transient was kept")
    }
  }

  @Test("pods that take turns with one main-actor provider each keep their own instance")
  func podsTakeTurnsOnTheMainActor() async {
    await #expect(processExitsWith: .success) {
      await MainActor.run {
        let provider = MainActorProvider { _ in Thing() }
        let first = SwiftPod()
        let firstThing = first.resolve(provider)
        for round in 0..<100 {
          let pod = SwiftPod()
          let thing = pod.resolve(provider)
          for _ in 0..<3 {
            precondition(pod.resolve(provider) === thing, "round \(round): another pod's instance")
            precondition(first.resolve(provider) === firstThing, "round \(round): the first pod lost its own")
          }
          precondition(thing !== firstThing, "round \(round): shared an instance")
        }
      }
    }
  }
}
