import ForgeInject
import ForgeTestSupport
import Testing

/// Distinct types for the cycle: each registration is keyed by its type.
private struct AsyncLeft: Sendable { let value: Int }
private struct AsyncRight: Sendable { let value: Int }
private struct Looping: Sendable { let value: Int }
/// Stops the part it holds when its container shuts down.
private final class Server: GracefulShutdown {
  let part: StoppablePart
  init(_ part: StoppablePart) { self.part = part }
  func shutdown() async throws { try await part.shutdown() }
}

@Suite("ForgeInject: async builders", .timeLimit(.minutes(1)))
struct AsyncRegistrationTests {
  private func container(
    _ factory: AsyncFactory, policy: ForgeRetainPolicy = .singleton
  ) -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: policy) { _ async throws in try await factory.make() }
    return container
  }

  @Test("64 concurrent first resolutions of a singleton await one build; none blocks a thread")
  func singleFlight() async throws {
    let factory = AsyncFactory(open: false)
    let container = container(factory)
    let (instances, errors) = summary(await factory.reads(64) { try await container.resolveAsync() })
    #expect(errors.isEmpty)
    #expect(instances == 1)
    #expect(factory.builds.count == 1)
    _ = try await container.resolveAsync(Thing.self)
    #expect(factory.builds.count == 1)
  }

  @Test("a kept instance, awaited on the main actor, is read there: no executor switch, no suspension")
  @MainActor
  func hitStaysOnCallersActor() async throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ async in Thing("kept") }
    let kept: Thing = try await container.resolveAsync()
    var read: Thing?
    #expect(try await letsMainActorWorkRun { read = try await container.resolveAsync() as Thing } == false)
    #expect(read === kept)
    // Through the protocol, as a builder or a module sees the container.
    let asProtocol: ForgeContainerProtocol = container
    #expect(try await letsMainActorWorkRun { read = try await asProtocol.resolveAsync() as Thing } == false)
    #expect(read === kept)
    // An Optional request of the type awaits the same hit.
    var optional: Thing?
    #expect(try await letsMainActorWorkRun { optional = try await container.resolveAsync() } == false)
    #expect(optional === kept)
    // A build does suspend (it runs off the main actor): the check can fail.
    let other = ForgeContainer()
    other.register(with: .singleton) { _ async in Thing("built") }
    #expect(try await letsMainActorWorkRun { _ = try await other.resolveAsync() as Thing })
  }

  @Test("an Optional request awaits the wrapped type's async builder; nil only when the type is missing")
  func optionalRequests() async throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ async throws in Thing("async") }
    container.register(with: .singleton) { _ in AsyncRight(value: 1) }
    let awaited: Thing? = try await container.resolveAsync()
    #expect(awaited?.label == "async")
    let synchronous: AsyncRight? = try await container.resolveAsync()
    #expect(synchronous?.value == 1)
    let missing: AsyncLeft? = try await container.resolveAsync()
    #expect(missing == nil)
  }

  @Test("transient builds every time; weak is shared while held, rebuilt after")
  func policies() async throws {
    let factory = AsyncFactory()
    let transient = container(factory, policy: .transient)
    let one: Thing = try await transient.resolveAsync()
    #expect(try await transient.resolveAsync(Thing.self) !== one)
    let weak = container(factory, policy: .weak)
    var held: Thing? = try await weak.resolveAsync(Thing.self)
    let heldID = held.map(ObjectIdentifier.init)
    #expect(try await ObjectIdentifier(weak.resolveAsync(Thing.self)) == heldID)
    held = nil
    _ = held
    #expect(try await ObjectIdentifier(weak.resolveAsync(Thing.self)) != heldID)
    #expect(factory.builds.count == 4)
  }

  @Test("a builder that throws keeps nothing: every waiter gets the error, the next resolution builds again")
  func failureRetries() async throws {
    let factory = AsyncFactory(open: false, failing: [1])
    let container = container(factory)
    let (instances, errors) = summary(await factory.reads(16) { try await container.resolveAsync() })
    #expect(instances == 0)
    #expect(errors.count == 16 && errors.allSatisfy { $0 is AsyncFactory.Failed })
    #expect(try await container.resolveAsync(Thing.self).label == "build 2")
  }

  @Test("cancelling one waiter ends its wait; the build goes on and is kept")
  func cancelOneWaiter() async throws {
    let factory = AsyncFactory(open: false)
    let container = container(factory)
    let outcome = await AsyncScenario.cancelOneWaiter(factory) { try await container.resolveAsync() }
    #expect(outcome.cancelled.error is CancellationError)
    #expect(try outcome.later.get() === outcome.kept.get())
    #expect(factory.builds.count == 1)
  }

  @Test("cancelling the last waiter cancels the build; the next resolution builds again")
  func cancelLastWaiter() async throws {
    let factory = AsyncFactory(sleepsUntilCancelled: [1])
    let container = container(factory)
    let outcome = await AsyncScenario.cancelLastWaiter(factory) { try await container.resolveAsync() }
    #expect(outcome.cancelled.error is CancellationError)
    #expect(try outcome.later.get().label == "build 2")
  }

  @Test("cycles: a builder that awaits its own type, and two that await each other on two tasks")
  func cycles() async {
    let gate = AsyncGate()
    let container = ForgeContainer()
    container.register(with: .singleton) { c async throws in
      Looping(value: try await c.resolveAsync(Looping.self).value)
    }
    container.register(with: .singleton) { c async throws in
      await gate.wait()
      return AsyncLeft(value: try await c.resolveAsync(AsyncRight.self).value)
    }
    container.register(with: .singleton) { c async throws in
      await gate.wait()
      return AsyncRight(value: try await c.resolveAsync(AsyncLeft.self).value)
    }
    let looping = await attempt { try await container.resolveAsync(Looping.self) }
    #expect((looping.error as? DependencyCycleError)?.path.count == 2)
    let results = await AsyncScenario.crossTaskCycle(gate: gate) {
      try await container.resolveAsync(AsyncLeft.self).value
    } _: {
      try await container.resolveAsync(AsyncRight.self).value
    }
    for result in results {
      let path = (result.error as? DependencyCycleError)?.path ?? []
      #expect(path.count == 3 && path.first == path.last)
    }
  }

  @Test("an async builder resolves synchronous registrations; resolveAsync() resolves those too")
  func mixed() async throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in 41 }
    container.register(with: .singleton) { c async throws in "\(try c.resolve() as Int + 1)" }
    #expect(try await container.resolveAsync(String.self) == "42")
    #expect(try await container.resolveAsync(Int.self) == 41)
  }

  @Test("a synchronous resolution of a type with an async builder says how to resolve it")
  func syncResolutionOfAsync() {
    let container = container(AsyncFactory())
    #expect {
      try container.resolve() as Thing
    } throws: { error in
      "\(error)".contains("registered with an async builder: resolve it with try await container.resolveAsync()")
    }
  }

  @Test("registering again replaces the builder: an override in ForgeInject's terms")
  func reRegister() async throws {
    let container = container(AsyncFactory())
    _ = try await container.resolveAsync(Thing.self)
    container.register(with: .singleton) { _ async in Thing("mock") }
    #expect(try await container.resolveAsync(Thing.self).label == "mock")
  }

  @Test("shutdown() stops an async instance before what its builder resolved")
  func shutdownOrder() async throws {
    let log = Guarded<[String]>([])
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in StoppablePart("store", log: log) }
    container.register(with: .singleton) { c async throws in
      await Task.yield()
      return Server(StoppablePart("server", log: log, [try c.resolve()]))
    }
    _ = try await container.resolveAsync(Server.self)
    let report = await container.shutdown()
    #expect(log.withLock { $0 } == ["server", "store"])
    #expect(report.stopped.count == 2)
  }
}
