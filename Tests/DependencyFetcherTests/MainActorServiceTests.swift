import DependencyFetcher
import ForgeTestSupport
import Testing

@MainActor final class FetchedScreen {
  let title: String
  init(_ title: String) {
    MainActor.preconditionIsolated()
    self.title = title
  }
}

/// A main-actor service that fetches itself, on a line the tests know.
enum LoopingService {
  static let line = #line + 1
  static let service: MainActorService<Int> = MainActorService { fetcher in fetcher.fetch(service) + 1 }
}

@Suite("DependencyFetcher: main-actor services", .timeLimit(.minutes(1)))
struct MainActorServiceTests {
  @Test("a main-actor service that fetches itself stops at its declaration, in DependencyFetcher's words")
  func cycleStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = await MainActor.run { Fetcher.createDefault().fetch(LoopingService.service) }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "DependencyFetcherTests/MainActorServiceTests.swift:\(LoopingService.line): Fatal error: DependencyFetcher: "
          + "[Forge.cycle] Dependency cycle: MainActorService<Swift.Int> (MainActorServiceTests.swift:"),
      "\(stderr)")
  }

  @Test("on the main actor the fetch is synchronous; elsewhere it is awaited, and made once per fetcher")
  func fetchesEverywhere() async {
    let builds = Counter()
    let title = Service { _ in "Screen" }
    let screen = MainActorService { fetcher in
      builds.increment()
      return FetchedScreen(fetcher.fetch(title))
    }
    let fetcher = Fetcher.createDefault()
    let fromTasks = await withTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<32 { group.addTask { await ObjectIdentifier(fetcher.fetch(screen)) } }
      return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    let onMain = await MainActor.run { ObjectIdentifier(fetcher.fetch(screen)) }
    #expect(fromTasks == [onMain])
    #expect(builds.count == 1)
  }

  @Test("shutdown() stops a main-actor instance before what its closure fetched")
  func shutdown() async {
    let log = Guarded<[String]>([])
    let engine = Service("engine") { StoppablePart("engine", log: log) }
    let screen = MainActorService("screen") { fetcher in
      MainActorStoppable(StoppablePart("screen", log: log, [fetcher.fetch(engine)]))
    }
    let fetcher = Fetcher.createDefault()
    _ = await fetcher.fetch(screen)
    let report = await fetcher.shutdown()
    #expect(report.stopped == ["screen", "engine"])
    #expect(log.withLock { $0 } == ["screen", "engine"])
  }

  @Test("the graph has what a main-actor closure fetched")
  @MainActor
  func graph() {
    let title = Service("title") { "Screen" }
    let screen = MainActorService("screen") { fetcher in FetchedScreen(fetcher.fetch(title)) }
    let fetcher = Fetcher.createDefault()
    _ = fetcher.fetch(screen)
    #expect(fetcher.dependencyGraph().dependencies(of: "screen", transitively: false).map(\.name) == ["title"])
  }
}
