import Forge
import ForgeTestSupport
import Testing

final class AsyncContainer: Container, @unchecked Sendable {
  let factory: AsyncFactory
  let log = Guarded<[String]>([])
  let slowServerStarted = Counter()
  init(_ factory: AsyncFactory = AsyncFactory()) { self.factory = factory }

  var shared: AsyncDependency<Thing> { provide(.singleton) { try await self.factory.make() } }
  var fresh: AsyncDependency<Thing> { provide { try await self.factory.make() } }
  var cachedThing: AsyncDependency<Thing> { provide(.cached) { try await self.factory.make() } }
  var label: String { provide { "real" } }
  var previewed: AsyncDependency<Thing> {
    provide(.singleton) {
      Thing("real")
    } preview: {
      Thing("preview")
    }
  }
  var previewedAsync: AsyncDependency<Thing> {
    provide(.singleton) {
      await Task.yield()
      return Thing("real")
    } preview: {
      Thing("preview")
    }
  }
  /// A factory that does not await.
  var immediate: AsyncDependency<Thing> { provide(.singleton) { Thing("immediate") } }
  /// Async, built from a synchronous dependency.
  var labelled: AsyncDependency<String> { provide(.singleton) { "\(self.label) \(try await self.shared.value.label)" } }

  var selfNeeding: AsyncDependency<Int> { provide(.singleton) { try await self.selfNeeding.value + 1 } }
  var transientSelf: AsyncDependency<Int> { provide { try await self.transientSelf.value + 1 } }
  var left: AsyncDependency<Int> {
    provide(.singleton) {
      await self.factory.gate.wait()
      return try await self.right.value
    }
  }
  var right: AsyncDependency<Int> {
    provide(.singleton) {
      await self.factory.gate.wait()
      return try await self.left.value
    }
  }

  var store: StoppablePart { provide(.singleton) { StoppablePart("store", log: self.log) } }
  /// Shuts its own container down while it is being built.
  var selfStopping: AsyncDependency<String> {
    provide(.singleton) {
      _ = self.store
      return "\(await self.shutdown())"
    }
  }
  /// Resolves `store`, then opens once `factory.gate` does.
  var slowServer: AsyncDependency<StoppablePart> {
    provide(.singleton) {
      let store = self.store
      self.slowServerStarted.increment()
      await self.factory.gate.wait()
      return StoppablePart("slow server", log: self.log, [store])
    }
  }
  var server: AsyncDependency<StoppablePart> {
    provide(.singleton) {
      await Task.yield()
      return StoppablePart("server", log: self.log, [self.store])
    }
  }
}

@Suite("Forge: async dependencies", .timeLimit(.minutes(1)))
struct AsyncDependencyTests {
  @Test("64 concurrent first reads of a singleton await one build; none blocks a thread")
  func singleFlight() async {
    let container = AsyncContainer(AsyncFactory(open: false))
    let results = await container.factory.reads(64) { try await container.shared.value }
    let (instances, errors) = summary(results)
    #expect(errors.isEmpty)
    #expect(instances == 1)
    #expect(container.factory.builds.count == 1)
    // Kept: a later read builds nothing.
    _ = try? await container.shared.value
    #expect(container.factory.builds.count == 1)
  }

  @Test("a kept instance, awaited on the main actor, is read there: no executor switch, no suspension")
  @MainActor
  func hitStaysOnCallersActor() async throws {
    let container = AsyncContainer()
    let kept = try await container.immediate.value
    var read: Thing?
    #expect(try await letsMainActorWorkRun { read = try await container.immediate.value } == false)
    #expect(read === kept)
    // A build does suspend (it runs off the main actor): the check can fail.
    #expect(try await letsMainActorWorkRun { _ = try await AsyncContainer().immediate.value })
  }

  @Test("a transient builds on every read, a cached one again after resetCached()")
  func lifetimes() async throws {
    let container = AsyncContainer()
    let one = try await container.fresh.value
    let two = try await container.fresh.value
    #expect(one !== two)
    let cached = try await container.cachedThing.value
    #expect(try await container.cachedThing.value === cached)
    container.resetCached()
    #expect(try await container.cachedThing.value !== cached)
    #expect(container.factory.builds.count == 4)
  }

  @Test("a build that throws keeps nothing: every waiter gets the error, the next read builds again")
  func failureRetries() async throws {
    let container = AsyncContainer(AsyncFactory(open: false, failing: [1]))
    let results = await container.factory.reads(16) { try await container.shared.value }
    let (instances, errors) = summary(results)
    #expect(instances == 0)
    #expect(errors.count == 16)
    #expect(errors.allSatisfy { $0 is AsyncFactory.Failed })
    let thing = try await container.shared.value
    #expect(thing.label == "build 2")
    #expect(container.factory.builds.count == 2)
  }

  @Test("cancelling one waiter ends its wait; the build goes on for the others and is kept")
  func cancelOneWaiter() async throws {
    let container = AsyncContainer(AsyncFactory(open: false))
    let outcome = await AsyncScenario.cancelOneWaiter(container.factory) { try await container.shared.value }
    #expect(outcome.cancelled.error is CancellationError)
    let kept = try outcome.kept.get()
    #expect(try outcome.later.get() === kept)
    #expect(container.factory.builds.count == 1)
  }

  @Test("cancelling the last waiter cancels the build: nothing is kept, the next read builds again")
  func cancelLastWaiter() async throws {
    let container = AsyncContainer(AsyncFactory(sleepsUntilCancelled: [1]))
    let outcome = await AsyncScenario.cancelLastWaiter(container.factory) { try await container.shared.value }
    #expect(outcome.cancelled.error is CancellationError)
    #expect(try outcome.later.get().label == "build 2")
  }

  @Test("a factory that awaits its own dependency throws the cycle, singleton or transient")
  func selfCycle() async {
    let container = AsyncContainer()
    await #expect(throws: DependencyCycleError(path: ["AsyncContainer.selfNeeding", "AsyncContainer.selfNeeding"])) {
      try await container.selfNeeding.value
    }
    await #expect(
      throws: DependencyCycleError(path: ["AsyncContainer.transientSelf", "AsyncContainer.transientSelf"])
    ) {
      try await container.transientSelf.value
    }
  }

  @Test("two builds on two tasks that await each other fail with the cycle instead of waiting forever")
  func crossTaskCycle() async {
    let container = AsyncContainer(AsyncFactory(open: false))
    let results = await AsyncScenario.crossTaskCycle(gate: container.factory.gate) {
      try await container.left.value
    } _: {
      try await container.right.value
    }
    for result in results {
      let cycle = result.error as? DependencyCycleError
      #expect(Set(cycle?.path ?? []) == ["AsyncContainer.left", "AsyncContainer.right"])
      #expect(cycle?.path.first == cycle?.path.last)
    }
  }

  @Test("an async factory reads synchronous dependencies and awaits async ones")
  func mixed() async throws {
    let container = AsyncContainer()
    #expect(try await container.labelled.value == "real build 1")
  }

  @Test("a factory that does not await still declares an async dependency")
  func immediate() async throws {
    let container = AsyncContainer()
    let thing = try await container.immediate.value
    #expect(thing.label == "immediate")
    #expect(try await container.immediate.value === thing)
  }

  @Test("in preview mode the preview factory builds the instance, which is never kept")
  func preview() async throws {
    let container = AsyncContainer()
    let (one, two) = try await Forge.withPreviewMode {
      (try await container.previewed.value, try await container.previewed.value)
    }
    #expect(one.label == "preview" && two.label == "preview" && one !== two)
    #expect(try await container.previewed.value.label == "real")
    let asyncPreview = try await Forge.withPreviewMode { try await container.previewedAsync.value }
    #expect(asyncPreview.label == "preview")
    #expect(try await container.previewedAsync.value.label == "real")
  }

  @Test("an override replaces an async dependency until it is removed")
  func override() async throws {
    let container = AsyncContainer()
    let real = try await container.shared.value
    container.override(\.shared) { Thing("mock") }
    #expect(try await container.shared.value.label == "mock")
    container.removeOverride(for: \.shared)
    #expect(try await container.shared.value === real)
  }

  @Test("withOverrides: an async singleton built inside the scope sees its overrides and stays in it")
  func scopedOverride() async throws {
    let container = AsyncContainer()
    let inside = try await container.withOverrides {
      $0.override(\.label) { "mock" }
    } run: {
      let first = try await container.labelled.value
      #expect(try await container.labelled.value == first)
      return first
    }
    #expect(inside == "mock build 1")
    // Outside, the container's own instances: `shared` too was built for
    // the scope (async builds are kept with any scope they run in).
    #expect(try await container.labelled.value == "real build 2")
  }

  @Test("withOverrides: an async factory replaces an async dependency in the scope only")
  func scopedAsyncOverride() async throws {
    let container = AsyncContainer()
    let real = try await container.shared.value
    let inside = try await container.withOverrides {
      $0.override(\.shared) { () async throws -> Thing in
        await Task.yield()
        return Thing("scoped mock")
      }
    } run: {
      try await container.shared.value.label
    }
    #expect(inside == "scoped mock")
    #expect(try await container.shared.value === real)
  }

  @Test("a container is released after its async dependencies were built: the kept handle holds no factory")
  func containerReleased() async throws {
    weak var released: AsyncContainer?
    do {
      let container = AsyncContainer()
      released = container
      _ = try await container.shared.value
      _ = try await container.labelled.value
    }
    // The build's task lets go of the factory when it ends, just after the
    // value is handed over.
    for _ in 0..<1_000 where released != nil { try await Task.sleep(for: .milliseconds(1)) }
    #expect(released == nil)
  }

  @Test("shutdown() stops an async instance before what its build resolved")
  func shutdownOrder() async throws {
    let container = AsyncContainer()
    _ = try await container.server.value
    let report = await container.shutdown()
    #expect(container.log.withLock { $0 } == ["server", "store"])
    #expect(report.stopped == ["AsyncContainer.server", "AsyncContainer.store"])
  }

  @Test("shutdown() waits for a build in progress, and stops its instance before what it resolved")
  func shutdownWaitsForBuild() async throws {
    let container = AsyncContainer(AsyncFactory(open: false))
    let reader = Task { try await container.slowServer.value }
    while container.slowServerStarted.count == 0 { await Task.yield() }
    let (shutdown, returnedEarly) = await shutdownInBackground(container)
    #expect(!returnedEarly, "shutdown() returned while the build was in progress")
    container.factory.gate.open()
    let report = await shutdown.value
    // The reader that started the build gets its instance, which the
    // container then stops, before the store it was built from.
    #expect(try await reader.value.name == "slow server")
    #expect(report.stopped == ["AsyncContainer.slowServer", "AsyncContainer.store"])
    #expect(container.log.withLock { $0 } == ["slow server", "store"])
  }

  @Test("a factory that shuts its own container down does not wait for its own build")
  func factoryShutsDown() async throws {
    let container = AsyncContainer()
    #expect(try await container.selfStopping.value == "Shut down 1 instance(s): AsyncContainer.store.")
    #expect(container.log.withLock { $0 } == ["store"])
  }

  @Test("cancelling shutdown() ends its wait for a build in progress; that instance is not stopped")
  func cancelledShutdown() async throws {
    let container = AsyncContainer(AsyncFactory(open: false))
    _ = container.store
    let reader = Task { try await container.shared.value }
    while container.factory.builds.count == 0 { await Task.yield() }
    let shutdown = Task { await container.shutdown() }
    try await Task.sleep(for: .milliseconds(20))
    shutdown.cancel()
    let report = await shutdown.value
    #expect(report.stopped == ["AsyncContainer.store"])
    container.factory.gate.open()
    #expect(try await reader.value.label == "build 1")
  }
}
