import ForgeTestSupport
import SwiftPod
import Testing

@Suite("SwiftPod: async providers", .timeLimit(.minutes(1)))
struct AsyncProviderTests {
  @Test("64 concurrent first resolutions await one build; none blocks a thread")
  func singleFlight() async throws {
    let factory = AsyncFactory(open: false)
    let provider = AsyncProvider { _ in try await factory.make() }
    let pod = SwiftPod()
    let (instances, errors) = summary(await factory.reads(64) { try await pod.resolve(provider) })
    #expect(errors.isEmpty)
    #expect(instances == 1)
    _ = try await pod.resolve(provider)
    #expect(factory.builds.count == 1)
  }

  @Test("a kept instance, awaited on the main actor, is read there: no executor switch, no suspension")
  @MainActor
  func hitStaysOnCallersActor() async throws {
    let provider = AsyncProvider { _ in Thing("kept") }
    let pod = SwiftPod()
    let kept = try await pod.resolve(provider)
    var read: Thing?
    #expect(try await letsMainActorWorkRun { read = try await pod.resolve(provider) } == false)
    #expect(read === kept)
    // A build does suspend (it runs off the main actor): the check can fail.
    let other = AsyncProvider { _ in Thing("built") }
    #expect(try await letsMainActorWorkRun { _ = try await pod.resolve(other) })
  }

  @Test("a custom scope keeps the instance until it is cleared")
  func scopes() async throws {
    let factory = AsyncFactory()
    let provider = AsyncProvider(scope: GraphProviders.FormScope()) { _ in try await factory.make() }
    let pod = SwiftPod()
    let first = try await pod.resolve(provider)
    #expect(try await pod.resolve(provider) === first)
    pod.clearCachedInstances(forScope: GraphProviders.FormScope())
    #expect(try await pod.resolve(provider) !== first)
  }

  @Test("hits read the kept instance in place while a thread clears it: every read is a built instance")
  func hitsWhileCleared() async throws {
    let factory = AsyncFactory()
    let provider = AsyncProvider(scope: GraphProviders.FormScope()) { _ in try await factory.make() }
    let pod = SwiftPod()
    _ = try await pod.resolve(provider)
    // A real thread clears the scope 50 times while four tasks hit, each
    // time once the hits have built it again: each hit reads the handle the
    // store publishes without copying it, so a clear that freed what a hit
    // still reads would show here (and under AddressSanitizer in CI). The
    // readers yield (a hit does not suspend): parallel tests share the pool.
    let clears = RepeatedClears(50, rebuiltAs: factory.builds) {
      pod.clearCachedInstances(forScope: GraphProviders.FormScope())
    }
    let labels = try await withThrowingTaskGroup(of: Set<String>.self) { group in
      for _ in 0..<4 {
        group.addTask {
          var seen: Set<String> = []
          repeat {
            seen.insert(try await pod.resolve(provider).label)
            await Task.yield()
          } while !clears.done.isRaised
          return seen
        }
      }
      return try await group.reduce(into: Set<String>()) { $0.formUnion($1) }
    }
    clears.join()
    // One build per clear (the waiters of each share it), and the first.
    #expect(factory.builds.count == 51)
    #expect(labels.isSubset(of: (1...51).map { "build \($0)" }))
    pod.clearCachedInstances(forScope: GraphProviders.FormScope())
    #expect(try await pod.resolve(provider).label == "build 52")
  }

  @Test("a builder that throws keeps nothing: every waiter gets the error, the next resolution builds again")
  func failureRetries() async throws {
    let factory = AsyncFactory(open: false, failing: [1])
    let provider = AsyncProvider { _ in try await factory.make() }
    let pod = SwiftPod()
    let (instances, errors) = summary(await factory.reads(16) { try await pod.resolve(provider) })
    #expect(instances == 0)
    #expect(errors.count == 16 && errors.allSatisfy { $0 is AsyncFactory.Failed })
    #expect(try await pod.resolve(provider).label == "build 2")
  }

  @Test("cancelling one waiter ends its wait; cancelling the last cancels the build")
  func cancellation() async throws {
    let factory = AsyncFactory(open: false)
    let provider = AsyncProvider { _ in try await factory.make() }
    let pod = SwiftPod()
    let one = await AsyncScenario.cancelOneWaiter(factory) { try await pod.resolve(provider) }
    #expect(one.cancelled.error is CancellationError)
    #expect(try one.later.get() === one.kept.get())
    let sleeping = AsyncFactory(sleepsUntilCancelled: [1])
    let slow = AsyncProvider { _ in try await sleeping.make() }
    let last = await AsyncScenario.cancelLastWaiter(sleeping) { try await pod.resolve(slow) }
    #expect(last.cancelled.error is CancellationError)
    #expect(try last.later.get().label == "build 2")
  }

  @Test("cycles: a provider awaiting itself, and two awaiting each other on two tasks")
  func cycles() async {
    let gate = AsyncGate()
    let looping = LoopingProviders()
    let pod = SwiftPod()
    let result = await attempt { try await pod.resolve(looping.selfNeeding) }
    #expect((result.error as? DependencyCycleError)?.path == ["selfNeeding", "selfNeeding"])
    let pair = LoopingProviders(gate: gate)
    let results = await AsyncScenario.crossTaskCycle(gate: gate) {
      try await pod.resolve(pair.left)
    } _: {
      try await pod.resolve(pair.right)
    }
    for result in results {
      #expect(Set((result.error as? DependencyCycleError)?.path ?? []) == ["left", "right"])
    }
    looping.release()
    pair.release()
  }

  @Test("an async builder resolves synchronous providers; an override replaces it until removed")
  func mixedAndOverride() async throws {
    let number = Provider { _ in 41 }
    let text = AsyncProvider { pod in "\(pod.resolve(number) + 1)" }
    let pod = SwiftPod()
    #expect(try await pod.resolve(text) == "42")
    pod.overrideProvider(text) { _ in "mock" }
    #expect(try await pod.resolve(text) == "mock")
    pod.removeOverrideProvider(text)
    #expect(try await pod.resolve(text) == "42")
  }

  @Test("shutdown() stops an async instance before what its builder resolved")
  func shutdownOrder() async throws {
    let log = Guarded<[String]>([])
    let store = Provider("store") { _ in StoppablePart("store", log: log) }
    let server = AsyncProvider("server") { pod in
      await Task.yield()
      return StoppablePart("server", log: log, [pod.resolve(store)])
    }
    let pod = SwiftPod()
    _ = try await pod.resolve(server)
    #expect(await pod.shutdown().stopped == ["server", "store"])
  }

  @Test("shutdown() waits for a builder in progress, and stops its instance before what it resolved")
  func shutdownWaitsForBuilder() async throws {
    let log = Guarded<[String]>([])
    let gate = AsyncGate()
    let started = Counter()
    let store = Provider("store") { _ in StoppablePart("store", log: log) }
    let server = AsyncProvider("server") { pod in
      let store = pod.resolve(store)
      started.increment()
      await gate.wait()
      return StoppablePart("server", log: log, [store])
    }
    let pod = SwiftPod()
    let reader = Task { try await pod.resolve(server) }
    while started.count == 0 { await Task.yield() }
    let (shutdown, returnedEarly) = await shutdownInBackground(pod)
    #expect(!returnedEarly, "shutdown() returned while the builder was running")
    gate.open()
    #expect(await shutdown.value.stopped == ["server", "store"])
    #expect(try await reader.value.name == "server")
    #expect(log.withLock { $0 } == ["server", "store"])
  }
}

/// Providers whose builders await each other, after waiting at `gate`.
private struct LoopingProviders {
  let selfNeeding: AsyncProvider<Int>
  let left: AsyncProvider<Int>
  let right: AsyncProvider<Int>

  /// The providers the builders look up when they run: each holds the
  /// others through it, a cycle ``release()`` breaks.
  private let later = Guarded<[String: AsyncProvider<Int>]>([:])

  init(gate: AsyncGate = AsyncGate(open: true)) {
    let later = later
    selfNeeding = AsyncProvider("selfNeeding") { pod in try await pod.resolve(later.withLock { $0["self"]! }) + 1 }
    left = AsyncProvider("left") { pod in
      await gate.wait()
      return try await pod.resolve(later.withLock { $0["right"]! })
    }
    let left = left
    right = AsyncProvider("right") { pod in
      await gate.wait()
      return try await pod.resolve(left)
    }
    later.withLock { [selfNeeding, right] in $0 = ["self": selfNeeding, "right": right] }
  }

  func release() { later.withLock { $0 = [:] } }
}
