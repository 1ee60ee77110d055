import ForgeCore
import ForgeTestSupport
import Testing

@Suite("ForgeCore: async builds", .timeLimit(.minutes(1)))
struct AsyncBuildTests {
  private func dependency(
    _ name: String = "thing",
    lifetime: Lifetime = .singleton,
    _ factory: @escaping @Sendable () async throws -> Thing
  ) -> AsyncDependency<Thing> {
    AsyncDependency(name: name, identity: AnyHashable(name), lifetime: lifetime, factory: factory)
  }

  @Test("a build that ends while waiters are still arriving answers every one of them")
  func lateWaiters() async {
    // Each round, a build that ends at once races 32 readers: a waiter
    // admitted before the end but registered after it must still be
    // answered, or the round never ends.
    for _ in 0..<200 {
      let builds = Counter()
      let thing = dependency {
        builds.increment()
        return Thing()
      }
      let ids = await withTaskGroup(of: ObjectIdentifier?.self) { group in
        for _ in 0..<32 { group.addTask { try? ObjectIdentifier(await thing.value) } }
        var ids: Set<ObjectIdentifier?> = []
        for await id in group { ids.insert(id) }
        return ids
      }
      #expect(ids.count == 1 && !ids.contains(nil))
      #expect(builds.count == 1)
    }
  }

  @Test("a task that comes while an abandoned build is ending gets a new build, not the cancellation")
  func joinsAbandonedBuild() async throws {
    let gate = AsyncGate()
    let builds = Counter()
    let thing = dependency {
      let build = builds.incremented()
      if build == 1 {
        // Stopped by the cancellation, but finishes only once the gate
        // opens: the wait runs in a task of its own, which the build's
        // cancellation does not reach (the gate's own wait would end at
        // once, and the build with it, before the next task came).
        await Task { await gate.wait() }.value
        throw CancellationError()
      }
      return Thing("build \(build)")
    }
    let first = Task { try await thing.value }
    await yield(until: builds.count > 0)
    first.cancel()
    #expect(await first.result.error is CancellationError)
    // The abandoned build is still running; the next task joins it.
    let second = Task { try await thing.value }
    await yield(until: thing.waiterCount > 0)
    #expect(builds.count == 1)
    gate.open()
    #expect(try await second.value.label == "build 2")
    #expect(builds.count == 2)
  }

  @Test("a build whose last waiter is cancelled is cancelled too; one that finishes anyway is kept")
  func abandonedBuildThatFinishes() async throws {
    let gate = AsyncGate()
    let builds = Counter()
    let sawCancellation = Counter()
    let thing = dependency {
      let build = builds.incremented()
      // Waits in a task of its own, which the cancellation does not reach,
      // and then finishes as if it had not seen it.
      await Task { await gate.wait() }.value
      if Task.isCancelled { sawCancellation.increment() }
      return Thing("build \(build)")
    }
    let only = Task { try await thing.value }
    await yield(until: builds.count > 0)
    only.cancel()
    #expect(await only.result.error is CancellationError)
    gate.open()
    await thing.buildInProgressEnded()
    #expect(sawCancellation.count == 1)
    #expect(try await thing.value.label == "build 1")
    #expect(builds.count == 1)
  }

  @Test("a weak instance is shared while held and rebuilt after")
  func weak() async throws {
    let builds = Counter()
    let thing = dependency(lifetime: .weak) { Thing("build \(builds.incremented())") }
    var held: Thing? = try await thing.value
    #expect(try await thing.value === held)
    held = nil
    #expect(try await thing.value.label == "build 2")
    _ = held
  }

  @Test("a handle fits in four words, so a property returns it in registers")
  func handleFitsInRegisters() {
    // Forge's properties return the handle: at five words (a build and two
    // optional factories) it went back through memory on every hit.
    #expect(MemoryLayout<AsyncDependency<Thing>>.size <= 4 * MemoryLayout<UnsafeRawPointer>.size)
  }
}
