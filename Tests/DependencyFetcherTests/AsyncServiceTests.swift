import DependencyFetcher
import ForgeTestSupport
import Testing

@Suite("DependencyFetcher: async services", .timeLimit(.minutes(1)))
struct AsyncServiceTests {
  @Test("64 concurrent first fetches await one build; none blocks a thread")
  func singleFlight() async throws {
    let factory = AsyncFactory(open: false)
    let service = AsyncService { _ in try await factory.make() }
    let fetcher = Fetcher.createDefault()
    let (instances, errors) = summary(await factory.reads(64) { try await fetcher.fetch(service) })
    #expect(errors.isEmpty)
    #expect(instances == 1)
    _ = try await fetcher.fetch(service)
    #expect(factory.builds.count == 1)
    // Another fetcher makes its own.
    #expect(try await Fetcher.createDefault().fetch(service).label == "build 2")
  }

  @Test("a kept instance, awaited on the main actor, is read there: no executor switch, no suspension")
  @MainActor
  func hitStaysOnCallersActor() async throws {
    let service = AsyncService { _ in Thing("kept") }
    let fetcher = Fetcher.createDefault()
    let kept = try await fetcher.fetch(service)
    var read: Thing?
    #expect(try await letsMainActorWorkRun { read = try await fetcher.fetch(service) } == false)
    #expect(read === kept)
    // A build does suspend (it runs off the main actor): the check can fail.
    let other = AsyncService { _ in Thing("built") }
    #expect(try await letsMainActorWorkRun { _ = try await fetcher.fetch(other) })
  }

  @Test("a closure that throws keeps nothing: every waiter gets the error, the next fetch makes it again")
  func failureRetries() async throws {
    let factory = AsyncFactory(open: false, failing: [1])
    let service = AsyncService { _ in try await factory.make() }
    let fetcher = Fetcher.createDefault()
    let (instances, errors) = summary(await factory.reads(16) { try await fetcher.fetch(service) })
    #expect(instances == 0)
    #expect(errors.count == 16 && errors.allSatisfy { $0 is AsyncFactory.Failed })
    #expect(try await fetcher.fetch(service).label == "build 2")
  }

  @Test("cancelling one waiter ends its wait; cancelling the last cancels the build")
  func cancellation() async throws {
    let factory = AsyncFactory(open: false)
    let service = AsyncService { _ in try await factory.make() }
    let fetcher = Fetcher.createDefault()
    let one = await AsyncScenario.cancelOneWaiter(factory) { try await fetcher.fetch(service) }
    #expect(one.cancelled.error is CancellationError)
    #expect(try one.later.get() === one.kept.get())
    let sleeping = AsyncFactory(sleepsUntilCancelled: [1])
    let slow = AsyncService { _ in try await sleeping.make() }
    let last = await AsyncScenario.cancelLastWaiter(sleeping) { try await fetcher.fetch(slow) }
    #expect(last.cancelled.error is CancellationError)
    #expect(try last.later.get().label == "build 2")
  }

  @Test("cycles: a service awaiting itself, and two awaiting each other on two tasks")
  func cycles() async {
    let gate = AsyncGate()
    let later = Guarded<[String: AsyncService<Int>]>([:])
    let selfNeeding = AsyncService("selfNeeding") { fetcher in
      try await fetcher.fetch(later.withLock { $0["self"]! }) + 1
    }
    let left = AsyncService("left") { fetcher in
      await gate.wait()
      return try await fetcher.fetch(later.withLock { $0["right"]! })
    }
    let right = AsyncService("right") { fetcher in
      await gate.wait()
      return try await fetcher.fetch(left)
    }
    later.withLock { $0 = ["self": selfNeeding, "right": right] }
    let fetcher = Fetcher.createDefault()
    let result = await attempt { try await fetcher.fetch(selfNeeding) }
    #expect((result.error as? DependencyCycleError)?.path == ["selfNeeding", "selfNeeding"])
    let results = await AsyncScenario.crossTaskCycle(gate: gate) {
      try await fetcher.fetch(left)
    } _: {
      try await fetcher.fetch(right)
    }
    for result in results {
      #expect(Set((result.error as? DependencyCycleError)?.path ?? []) == ["left", "right"])
    }
    // The services hold each other through `later`: let them go.
    later.withLock { $0 = [:] }
  }

  @Test("an async service fetches synchronous ones; an override replaces it in the fetcher it is added to")
  func mixedAndOverride() async throws {
    let number = Service { _ in 41 }
    let text = AsyncService { fetcher in "\(fetcher.fetch(number) + 1)" }
    #expect(try await Fetcher.createDefault().fetch(text) == "42")
    let overridden = Fetcher.create().addOverride(for: text) { _ in "mock" }.done()
    #expect(try await overridden.fetch(text) == "mock")
  }

  @Test("shutdown() stops an async instance before what its closure fetched")
  func shutdownOrder() async throws {
    let log = Guarded<[String]>([])
    let store = Service("store") { _ in StoppablePart("store", log: log) }
    let server = AsyncService("server") { fetcher in
      await Task.yield()
      return StoppablePart("server", log: log, [fetcher.fetch(store)])
    }
    let fetcher = Fetcher.createDefault()
    _ = try await fetcher.fetch(server)
    #expect(await fetcher.shutdown().stopped == ["server", "store"])
  }
}
