import ForgeTestSupport
import SwiftPod
import Testing

@MainActor final class PodScreen {
  let title: String
  init(_ title: String) {
    MainActor.preconditionIsolated()
    self.title = title
  }
}

/// A main-actor provider that resolves itself, on a line the tests know.
enum LoopingScreen {
  static let line = #line + 1
  static let provider: MainActorProvider<Int> = MainActorProvider { pod in pod.resolve(provider) + 1 }
}

@Suite("SwiftPod: main-actor providers", .timeLimit(.minutes(1)))
struct MainActorProviderTests {
  @Test("a main-actor builder resolves another main-actor provider through its pod parameter")
  @MainActor
  func composes() {
    let routerBuilds = Counter()
    let router = MainActorProvider { _ in
      routerBuilds.increment()
      return PodScreen("router")
    }
    let screen = MainActorProvider { pod in [pod.resolve(router), PodScreen("screen")] }
    let pod = SwiftPod()
    let built = pod.resolve(screen)
    #expect(built.first === pod.resolve(router))
    #expect(routerBuilds.count == 1)
  }

  @Test("a main-actor provider that resolves itself stops at its declaration, in SwiftPod's words")
  func cycleStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = await MainActor.run { SwiftPod().resolve(LoopingScreen.provider) }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "SwiftPodTests/MainActorProviderTests.swift:\(LoopingScreen.line): Fatal error: SwiftPod: [Forge.cycle] "
          + "Dependency cycle: MainActorProvider<Swift.Int> (MainActorProviderTests.swift:\(LoopingScreen.line))"),
      "\(stderr)")
  }

  @Test("on the main actor the resolution is synchronous; elsewhere it is awaited, and built once")
  func resolvesEverywhere() async {
    let builds = Counter()
    let title = Provider { _ in "Screen" }
    let screen = MainActorProvider { pod in
      builds.increment()
      return PodScreen(pod.resolve(title))
    }
    let pod = SwiftPod()
    let fromTasks = await withTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<32 { group.addTask { await ObjectIdentifier(pod.resolve(screen)) } }
      return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    let onMain = await MainActor.run { ObjectIdentifier(pod.resolve(screen)) }
    #expect(fromTasks == [onMain])
    #expect(builds.count == 1)
    #expect(await pod.resolve(screen).title == "Screen")
  }

  @Test("hits on the main actor read the kept instance in place while a thread clears it")
  @MainActor
  func hitsWhileCleared() async {
    let builds = Counter()
    let screen = MainActorProvider(scope: GraphProviders.FormScope()) { _ in
      PodScreen("screen \(builds.incremented())")
    }
    let pod = SwiftPod()
    _ = pod.resolve(screen)
    // A real thread clears the scope 50 times while the main actor hits,
    // each time once the hits have built it again: each hit reads the
    // handle the store publishes without copying it, so a clear that freed
    // what a hit still reads would show here (and under AddressSanitizer in
    // CI).
    let clears = RepeatedClears(50, rebuiltAs: builds) {
      pod.clearCachedInstances(forScope: GraphProviders.FormScope())
    }
    var titles: Set<String> = []
    repeat {
      titles.insert(pod.resolve(screen).title)
      await Task.yield()
    } while !clears.done.isRaised
    clears.join()
    #expect(builds.count == 51)
    #expect(titles.isSubset(of: (1...51).map { "screen \($0)" }))
    pod.clearCachedInstances(forScope: GraphProviders.FormScope())
    #expect(pod.resolve(screen).title == "screen 52")
  }

  @Test("shutdown() stops a main-actor instance before what its builder resolved")
  func shutdown() async {
    let log = Guarded<[String]>([])
    let engine = Provider("engine") { _ in StoppablePart("engine", log: log) }
    let screen = MainActorProvider("screen") { pod in
      MainActorStoppable(StoppablePart("screen", log: log, [pod.resolve(engine)]))
    }
    let pod = SwiftPod()
    _ = await pod.resolve(screen)
    let report = await pod.shutdown()
    #expect(report.stopped == ["screen", "engine"])
    #expect(log.withLock { $0 } == ["screen", "engine"])
  }

  @Test("the graph has what a main-actor builder resolved")
  @MainActor
  func graph() {
    let title = Provider("title") { _ in "Screen" }
    let screen = MainActorProvider("screen") { pod in PodScreen(pod.resolve(title)) }
    let pod = SwiftPod()
    _ = pod.resolve(screen)
    #expect(pod.dependencyGraph().dependencies(of: "screen", transitively: false).map(\.name) == ["title"])
  }
}
