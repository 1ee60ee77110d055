import DependencyFetcher
import ForgeTestSupport
import Testing

/// Async services whose problems only an await reaches.
enum AsyncValidatedServices {
  final class Part: Sendable {}
  struct Unreachable: Error {}
  static let part = Service { Part() }
  static let sound = AsyncService("asyncSound") { fetcher in
    await Task.yield()
    return [fetcher.fetch(part)]
  }
  static let failing = AsyncService("asyncFailing") { _ -> Part in
    await Task.yield()
    throw Unreachable()
  }
}

@Suite("DependencyFetcher: validateAsync()", .timeLimit(.minutes(1)))
struct AsyncValidationTests {
  @Test("an async service that throws is reported; a sound one is checked with what it fetches")
  func broken() async {
    let report = await Fetcher.createDefault().validateAsync(
      AsyncValidatedServices.sound, AsyncValidatedServices.failing)
    #expect(report.problems.map(\.id) == [.builderFailed], "\(report)")
    #expect(report.problems(.builderFailed).first?.dependency == "asyncFailing")
    #expect(
      report.problems(.builderFailed).first?.description.contains(
        "Building asyncFailing threw DependencyFetcherTests.AsyncValidatedServices.Unreachable()") == true)
    #expect(report.graph.dependencies(of: "asyncSound").map(\.name) == [AsyncValidatedServices.part.name])
  }

  @Test("a synchronous failure inside an async service is reported with its path, and the run goes on")
  func synchronousFailureReported() async {
    // In a process of its own: the failed run's thread stays parked (see
    // endTestProcess).
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let looping = AsyncService("asyncLooping") { fetcher in
        await Task.yield()
        return fetcher.fetch(Service.loopA)
      }
      let report = await Fetcher.createDefault().validateAsync(looping, AsyncValidatedServices.failing)
      print(report)
      endTestProcess(
        passed: report.problems.map(\.id) == [.cycle, .builderFailed]
          && report.problems(.cycle).first?.chain == ["asyncLooping", "loopA", "loopB"]
          && report.problems(.builderFailed).first?.dependency == "asyncFailing")
    }
    let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(printed.contains("loopA → loopB → loopA"), "\(printed)")
  }

  @Test("a main-actor service is made on the main actor and checked, in isolation")
  func mainActor() async {
    let builds = Counter()
    let screen = MainActorService("screen") { fetcher in
      builds.increment()
      return [fetcher.fetch(AsyncValidatedServices.part)]
    }
    let fetcher = Fetcher.createDefault()
    let report = await fetcher.validateAsync(screen)
    #expect(report.isValid, "\(report)")
    #expect(report.graph.dependencies(of: "screen").map(\.name) == [AsyncValidatedServices.part.name])
    #expect(builds.count == 1)
    _ = await fetcher.fetch(screen)
    #expect(builds.count == 2)
  }

  @Test("nothing the check makes is kept in the fetcher")
  func isolated() async throws {
    let builds = Counter()
    let sound = AsyncService { fetcher in
      builds.increment()
      await Task.yield()
      return [fetcher.fetch(AsyncValidatedServices.part)]
    }
    let fetcher = Fetcher.createDefault()
    let part = fetcher.fetch(AsyncValidatedServices.part)
    #expect(await fetcher.validateAsync(sound).isValid)
    #expect(builds.count == 1)
    let parts = try await fetcher.fetch(sound)
    #expect(builds.count == 2)
    #expect(parts[0] === part)
  }
}
