import ForgeInject
import ForgeTestSupport
import Testing

/// Async builders with one of each problem an await can hide.
enum BrokenAsync {
  final class Archive: Sendable {}
  /// Its async builder needs a Broken.Database, which nobody registers.
  final class Mirror: Sendable {
    let database: Broken.Database
    init(database: Broken.Database) { self.database = database }
  }
  /// A singleton whose async builder holds a weak cache: a captive.
  final class Index: Sendable {
    let cache: Broken.Cache
    init(cache: Broken.Cache) { self.cache = cache }
  }
  struct Unreachable: Error {}

  static func container() -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ async in Archive() }
    container.register(with: .singleton) { c async throws in
      await Task.yield()
      return Mirror(database: try c.resolve())
    }
    container.register(with: .weak) { _ in Broken.Cache() }
    container.register(with: .singleton) { c async throws in
      await Task.yield()
      return Index(cache: try c.resolve())
    }
    container.register(with: .singleton) { _ async throws -> Broken.File in
      await Task.yield()
      throw Unreachable()
    }
    return container
  }
}

@Suite("ForgeInject: validateAsync()", .timeLimit(.minutes(1)))
struct AsyncValidationTests {
  @Test("what async builders resolve across their awaits is checked, every problem once")
  func broken() async {
    let report = await BrokenAsync.container().validateAsync()
    let ids = report.problems.map(\.id)
    #expect(ids == [.missing, .lifetimeMismatch, .builderFailed], "\(report)")
    let missing = report.problems(.missing).first
    #expect(missing?.dependency == "ForgeInjectTests.Broken.Database")
    #expect(missing?.chain == ["ForgeInjectTests.BrokenAsync.Mirror", "ForgeInjectTests.Broken.Database"])
    #expect(
      report.problems(.lifetimeMismatch).first?.chain == [
        "ForgeInjectTests.BrokenAsync.Index", "ForgeInjectTests.Broken.Cache",
      ])
    #expect(
      report.problems(.builderFailed).first?.description.contains(
        "Building ForgeInjectTests.Broken.File threw ForgeInjectTests.BrokenAsync.Unreachable()") == true)
  }

  @Test("the synchronous validate() runs no async builder; validateAsync() runs each")
  func onlyAsyncRuns() async {
    let container = ForgeContainer()
    let builds = Counter()
    container.register(with: .singleton) { _ async in
      builds.increment()
      return BrokenAsync.Archive()
    }
    #expect(container.validate().isValid)
    #expect(builds.count == 0)
    let report = await container.validateAsync()
    #expect(report.isValid, "\(report)")
    #expect(builds.count == 1)
  }

  @Test("a main-actor builder is run on the main actor and checked")
  func mainActor() async {
    let container = ForgeContainer()
    container.register(
      with: .singleton,
      onMainActor: { c in
        BrokenAsync.Mirror(database: try c.resolve())
      })
    let report = await container.validateAsync()
    #expect(report.problems.map(\.id) == [.missing], "\(report)")
    #expect(
      report.problems(.missing).first?.chain == [
        "ForgeInjectTests.BrokenAsync.Mirror", "ForgeInjectTests.Broken.Database",
      ])
  }

  @Test("nothing the check builds is kept: the container builds its own afterwards, and keeps what it had")
  func isolated() async throws {
    let container = ForgeContainer()
    let builds = Counter()
    container.register(with: .singleton) { _ in Broken.Database() }
    container.register(with: .singleton) { c async throws in
      builds.increment()
      return Broken.Repository(database: try c.resolve())
    }
    let database: Broken.Database = try container.resolve()
    #expect(await container.validateAsync().isValid)
    #expect(builds.count == 1)
    let repository: Broken.Repository = try await container.resolveAsync()
    #expect(builds.count == 2)
    #expect(repository.database === database)
  }
}
