import Forge
import ForgeTestSupport
import Testing

/// Async dependencies with one of each problem an await can hide.
final class AsyncBrokenContainer: Container, @unchecked Sendable {
  struct Unreachable: Error {}
  let builds = Counter()

  var user: Service { provide(.cached) { Service("grace") } }
  /// A captive across an await: a singleton holding a cached instance.
  var session: AsyncDependency<[Service]> {
    provide(.singleton) {
      self.builds.increment()
      await Task.yield()
      return [self.user]
    }
  }
  /// Its factory throws after an await.
  var archive: AsyncDependency<Service> {
    provide(.singleton) {
      await Task.yield()
      throw Unreachable()
    }
  }
  /// Awaits the archive, whose factory throws.
  var library: AsyncDependency<[Service]> {
    provide(.singleton) { [try await self.archive.value] }
  }
  /// Sound, and synchronous: validated on a thread of its own.
  var clock: Service { provide(.singleton) { Service("tick") } }
  /// A cycle among synchronous dependencies, reached only from an async one.
  var first: [any Sendable] { provide(.singleton) { [self.second] } }
  var second: [any Sendable] { provide(.cached) { [self.first] } }
  var looping: AsyncDependency<[any Sendable]> { provide(.singleton) { self.first } }
  /// The same cycle, reached from a task its factory starts with `Task {}`.
  var escaping: AsyncDependency<[any Sendable]> { provide(.singleton) { await Task { self.first }.value } }
  /// A captive on the main actor: a main-actor singleton holding a cached
  /// instance.
  var screen: MainActorDependency<SettingsModel> {
    provide(.singleton) { @MainActor in
      self.builds.increment()
      return SettingsModel(self.user.label)
    }
  }
}

@Suite("Forge: validateAsync()", .timeLimit(.minutes(1)))
struct AsyncValidationTests {
  @Test("what async factories resolve across their awaits is checked, with synchronous key paths beside them")
  func broken() async {
    let container = AsyncBrokenContainer()
    let report = await container.validateAsync(\.session, \.archive, \.clock)
    #expect(report.problems.map(\.id) == [.lifetimeMismatch, .builderFailed], "\(report)")
    #expect(
      report.problems(.lifetimeMismatch).first?.chain == ["AsyncBrokenContainer.session", "AsyncBrokenContainer.user"])
    let failed = report.problems(.builderFailed).first
    #expect(failed?.dependency == "AsyncBrokenContainer.archive")
    let thrown = "Building AsyncBrokenContainer.archive threw ForgeTests.AsyncBrokenContainer.Unreachable()"
    #expect(failed?.description.contains(thrown) == true)
    #expect(report.checked.contains("AsyncBrokenContainer.clock"))
  }

  @Test("a factory that throws under another's await is the one named, with the chain that reached it")
  func nestedFailure() async {
    let report = await AsyncBrokenContainer().validateAsync(\.library)
    let failed = report.problems(.builderFailed).first
    #expect(failed?.dependency == "AsyncBrokenContainer.archive", "\(report)")
    #expect(failed?.chain == ["AsyncBrokenContainer.library", "AsyncBrokenContainer.archive"])
    #expect(failed?.description.contains("Building AsyncBrokenContainer.archive threw") == true)
  }

  @Test("validate() runs no async factory, and nothing validateAsync() builds is kept")
  func isolated() async throws {
    let container = AsyncBrokenContainer()
    #expect(container.validate(\.session).isValid)
    #expect(container.builds.count == 0)
    _ = await container.validateAsync(\.session)
    #expect(container.builds.count == 1)
    let user = container.user
    let session = try await container.session.value
    #expect(container.builds.count == 2)
    #expect(session[0] === user)
  }

  @Test("a main-actor factory is run on the main actor and checked, in isolation")
  func mainActor() async throws {
    let container = AsyncBrokenContainer()
    let report = await container.validateAsync(\.screen)
    #expect(report.problems.map(\.id) == [.lifetimeMismatch], "\(report)")
    #expect(
      report.problems(.lifetimeMismatch).first?.chain == ["AsyncBrokenContainer.screen", "AsyncBrokenContainer.user"])
    #expect(container.builds.count == 1)
    let title = await MainActor.run { container.screen.value.title }
    #expect(title == "grace")
    #expect(container.builds.count == 2)
  }

  @Test("a synchronous failure inside an async factory is reported with its path, and the run goes on")
  func synchronousFailureReported() async {
    // In a process of its own: the failed run's thread stays parked (see
    // endTestProcess).
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let report = await AsyncBrokenContainer().validateAsync(\.looping, \.library)
      print(report)
      let cycle = report.problems(.cycle).first
      endTestProcess(
        passed: report.problems.map(\.id) == [.cycle, .builderFailed]
          && cycle?.chain
            == ["AsyncBrokenContainer.looping", "AsyncBrokenContainer.first", "AsyncBrokenContainer.second"]
          // The root after it was checked too.
          && report.problems(.builderFailed).first?.dependency == "AsyncBrokenContainer.archive")
    }
    let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(
      printed.contains("AsyncBrokenContainer.first → AsyncBrokenContainer.second → AsyncBrokenContainer.first"),
      "\(printed)")
  }

  @Test("a synchronous failure in a task that a factory starts with Task {} stops the program, as documented")
  func failureInEscapedTaskStops() async {
    // `Task {}` inherits the validation's task-locals but not its executor
    // preference: it runs on the cooperative pool, whose threads are never
    // parked.
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = await AsyncBrokenContainer().validateAsync(\.escaping)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "Dependency cycle: AsyncBrokenContainer.first → AsyncBrokenContainer.second → AsyncBrokenContainer.first"),
      "\(stderr)")
  }

}
