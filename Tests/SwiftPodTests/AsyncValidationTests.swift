import ForgeTestSupport
import SwiftPod
import Testing

/// Async providers with one of each problem an await can hide.
enum AsyncValidatedProviders {
  typealias Part = ValidatedProviders.Part
  struct Unreachable: Error {}
  /// A captive across an await: a singleton holding a parent-scoped part.
  static let holder = AsyncProvider("asyncHolder") { pod in
    await Task.yield()
    return Part([pod.resolve(ValidatedProviders.parentPart)])
  }
  /// Its builder throws after an await.
  static let failing = AsyncProvider("asyncFailing") { _ -> Part in
    await Task.yield()
    throw Unreachable()
  }
}

@Suite("SwiftPod: validateAsync()", .timeLimit(.minutes(1)))
struct AsyncValidationTests {
  @Test("what async builders resolve across their awaits is checked, every problem once")
  func broken() async {
    let report = await SwiftPod().validateAsync(AsyncValidatedProviders.holder, AsyncValidatedProviders.failing)
    #expect(report.problems.map(\.id) == [.lifetimeMismatch, .builderFailed], "\(report)")
    #expect(report.problems(.lifetimeMismatch).first?.chain == ["asyncHolder", "parentPart"])
    #expect(report.problems(.builderFailed).first?.dependency == "asyncFailing")
    #expect(report.problems(.builderFailed).first?.description.contains("Building asyncFailing threw") == true)
  }

  @Test("a synchronous failure inside an async builder is reported with its path, and the run goes on")
  func synchronousFailureReported() async {
    // In a process of its own: the failed run's thread stays parked (see
    // endTestProcess).
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      final class Loop: @unchecked Sendable { var back: Provider<AsyncValidatedProviders.Part>? }
      let loop = Loop()
      let loopA = Provider("asyncLoopA") { pod in AsyncValidatedProviders.Part([pod.resolve(loop.back!)]) }
      loop.back = Provider("asyncLoopB") { pod in AsyncValidatedProviders.Part([pod.resolve(loopA)]) }
      let looping = AsyncProvider("asyncLooping") { pod in
        await Task.yield()
        return pod.resolve(loopA)
      }
      let report = await SwiftPod().validateAsync(looping, AsyncValidatedProviders.failing)
      print(report)
      endTestProcess(
        passed: report.problems.map(\.id) == [.cycle, .builderFailed]
          && report.problems(.cycle).first?.chain == ["asyncLooping", "asyncLoopA", "asyncLoopB"]
          && report.problems(.builderFailed).first?.dependency == "asyncFailing")
    }
    let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(printed.contains("asyncLoopA → asyncLoopB → asyncLoopA"), "\(printed)")
  }

  @Test("a main-actor provider is built on the main actor and checked, in isolation")
  func mainActor() async {
    let builds = Counter()
    let screen = MainActorProvider("screen") { pod in
      builds.increment()
      return AsyncValidatedProviders.Part([pod.resolve(ValidatedProviders.parentPart)])
    }
    let pod = SwiftPod()
    let report = await pod.validateAsync(screen)
    #expect(report.problems.map(\.id) == [.lifetimeMismatch], "\(report)")
    #expect(report.problems(.lifetimeMismatch).first?.chain == ["screen", "parentPart"])
    #expect(builds.count == 1)
    let part = pod.resolve(ValidatedProviders.parentPart)
    let built = await pod.resolve(screen)
    #expect(builds.count == 2)
    #expect(built.parts[0] === part)
  }

  @Test("nothing the check builds is kept in the pod")
  func isolated() async throws {
    let builds = Counter()
    // A leaf of its own: ValidationTests counts the builds of the shared
    // one, and runs in parallel with this.
    let leaf = Provider("leaf") { _ in AsyncValidatedProviders.Part() }
    let holder = AsyncProvider("holder") { pod in
      builds.increment()
      await Task.yield()
      return AsyncValidatedProviders.Part([pod.resolve(leaf)])
    }
    let pod = SwiftPod()
    let part = pod.resolve(leaf)
    #expect(await pod.validateAsync(holder).isValid)
    #expect(builds.count == 1)
    let built = try await pod.resolve(holder)
    #expect(builds.count == 2)
    #expect(built.parts[0] === part)
  }

  @Test(
    "a task a builder started that outlives validateAsync resolves from the pod, even while another validation runs"
  )
  func escapedTaskAfterTheRun() async {
    let pod = SwiftPod()
    let shared = Provider("shared") { _ in Thing("shared") }
    let resolveNow = Signal()
    let escaped = LockedValue<Task<Thing, Never>?>(nil)
    let starter = AsyncProvider("starter") { pod in
      escaped.current = Task {
        while !resolveNow.isRaised { try? await Task.sleep(for: .milliseconds(1)) }
        return pod.resolve(shared)
      }
      return Thing("starter")
    }
    let holding = Signal()
    let release = Signal()
    let holder = AsyncProvider("holder") { _ in
      holding.raise()
      while !release.isRaised { try? await Task.sleep(for: .milliseconds(1)) }
      return Thing("holder")
    }
    #expect(await pod.validateAsync(starter).isValid)
    // The first run is over; a second one is in progress while the task
    // that outlived the first resolves.
    async let second = pod.validateAsync(holder)
    while !holding.isRaised { try? await Task.sleep(for: .milliseconds(1)) }
    resolveNow.raise()
    let fromEscaped = await escaped.current!.value
    release.raise()
    #expect(await second.isValid)
    #expect(fromEscaped === pod.resolve(shared), "the escaped task was served by the ended run, not the pod")
  }
}
