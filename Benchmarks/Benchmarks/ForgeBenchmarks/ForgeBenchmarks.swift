import Benchmark
import Dependencies
import DependencyFetcher
import Dispatch
import Forge
import ForgeInject
import SwiftPod
@preconcurrency import Swinject

// Every scenario of issue 5, for hand-written injection, each Forge dialect
// where it applies, Swinject and swift-dependencies. Names are
// "scenario / system" so Scripts/ratios.py can compare within one run.

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .nanoseconds,
    warmupIterations: 10,
    scalingFactor: .kilo,
    maxDuration: .seconds(1),
    maxIterations: .count(1_000_000)
  )

  let hand = HandWrittenContainer()
  let forge = BenchContainer()
  let inject = makeForgeInjectContainer()
  registerForgeInjectGraph(in: inject)
  let pod = SwiftPod()
  let fetcher = Fetcher.createDefault()
  let swinject = makeSwinjectContainer()
  let swinjectSynchronized = swinject.synchronize()

  func measure(_ scenario: String, _ system: String, _ body: @escaping @Sendable () -> Any) {
    Benchmark("\(scenario) / \(system)") { benchmark in
      for _ in benchmark.scaledIterations { blackHole(body()) }
    }
  }

  // 1. Cached hit.
  measure("1 cached hit", "hand-written") { hand.cachedLeaf() }
  measure("1 cached hit", "Forge") { forge.cachedLeaf }
  measure("1 cached hit", "ForgeInject") { try! inject.resolve() as Leaf }
  measure("1 cached hit", "SwiftPod") { pod.resolve(podCachedLeaf) }
  measure("1 cached hit", "DependencyFetcher") { fetcher.fetch(.benchLeaf) }
  measure("1 cached hit", "Swinject") { swinject.resolve(Leaf.self, name: "cached")! }
  measure("1 cached hit", "swift-dependencies") { swiftDependenciesLeaf() }

  // 2. Transient leaf.
  measure("2 transient leaf", "hand-written") { hand.transientLeaf() }
  measure("2 transient leaf", "Forge") { forge.transientLeaf }
  measure("2 transient leaf", "ForgeInject") { try! inject.resolve() as TransientLeaf }
  measure("2 transient leaf", "SwiftPod") { pod.resolve(podTransientLeaf) }
  measure("2 transient leaf", "Swinject") { swinject.resolve(TransientLeaf.self)! }

  // 3. Chain A(B(C)): transient, transient, singleton.
  measure("3 chain", "hand-written") { hand.chain() }
  measure("3 chain", "Forge") { forge.chainA }
  measure("3 chain", "ForgeInject") { try! inject.resolve() as ChainA }
  measure("3 chain", "SwiftPod") { pod.resolve(podChainA) }
  measure("3 chain", "Swinject") { swinject.resolve(ChainA.self)! }

  // 4. The 50-node graph, from its transient root; every system builds the
  // same graph as the hand-written one.
  let builds: [(String, @Sendable () -> Node)] = [
    ("Forge", { forge.graphRoot }),
    ("ForgeInject", { (try! inject.resolve() as Typed<Tag0>).node }),
    ("SwiftPod", { pod.resolve(podGraph[0]) }),
    ("Swinject", { swinject.resolve(Node.self, name: "node0")! }),
  ]
  let handSignature = Graph.signature(hand.graphRoot(), hand.graphRoot())
  for (system, build) in builds {
    precondition(Graph.signature(build(), build()) == handSignature, "\(system) builds another graph")
  }
  measure("4 graph of 50", "hand-written") { hand.graphRoot() }
  measure("4 graph of 50", "Forge") { forge.graphRoot }
  measure("4 graph of 50", "ForgeInject") { (try! inject.resolve() as Typed<Tag0>).node }
  measure("4 graph of 50", "SwiftPod") { pod.resolve(podGraph[0]) }
  measure("4 graph of 50", "Swinject") { swinject.resolve(Node.self, name: "node0")! }

  // 5. Set-up: a container with 100 registrations (where the dialect
  // registers), then one resolution.
  Benchmark("5 set-up / hand-written", configuration: .init(scalingFactor: .one)) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(HandWrittenContainer().cachedLeaf()) }
  }
  Benchmark("5 set-up / Forge", configuration: .init(scalingFactor: .one)) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(BenchContainer().cachedLeaf) }
  }
  Benchmark("5 set-up / ForgeInject", configuration: .init(scalingFactor: .one)) { benchmark in
    for _ in benchmark.scaledIterations {
      let container = ForgeContainer()
      registerHundred(in: container)
      blackHole(try! container.resolve() as Typed<Tag0>)
    }
  }
  Benchmark("5 set-up / SwiftPod", configuration: .init(scalingFactor: .one)) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(SwiftPod().resolve(podCachedLeaf)) }
  }
  Benchmark("5 set-up / DependencyFetcher", configuration: .init(scalingFactor: .one)) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(Fetcher.createDefault().fetch(.benchLeaf)) }
  }
  Benchmark("5 set-up / Swinject", configuration: .init(scalingFactor: .one)) { benchmark in
    for _ in benchmark.scaledIterations {
      let container = Swinject.Container()
      for index in 0..<100 {
        container.register(Leaf.self, name: nodeNames[index % Graph.size] + "-\(index)") { _ in Leaf() }
      }
      container.register(Leaf.self) { _ in Leaf() }
      blackHole(container.resolve(Leaf.self)!)
    }
  }

  // 6. Cached hit on 2 threads at once; time per operation per thread.
  // A million operations per thread and sample: with a thousand (20 us),
  // waking the second thread took about as long as the work, so in many
  // samples one thread ran both halves in turn and the figure measured the
  // scheduler.
  func twoThreads(_ system: String, _ body: @escaping @Sendable () -> Any) {
    Benchmark(
      "6 cached hit, 2 threads / \(system)",
      configuration: .init(scalingFactor: .mega, maxDuration: .seconds(2), maxIterations: .count(100))
    ) { benchmark in
      let perThread = benchmark.scaledIterations.count
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        for _ in 0..<perThread { blackHole(body()) }
      }
    }
  }
  twoThreads("hand-written") { hand.cachedLeaf() }
  twoThreads("Forge") { forge.cachedLeaf }
  twoThreads("ForgeInject") { try! inject.resolve() as Leaf }
  twoThreads("SwiftPod") { pod.resolve(podCachedLeaf) }
  twoThreads("DependencyFetcher") { fetcher.fetch(.benchLeaf) }
  twoThreads("Swinject (synchronized)") { swinjectSynchronized.resolve(Leaf.self, name: "cached")! }
  twoThreads("swift-dependencies") { swiftDependenciesLeaf() }

  // 7. Resolution with an override active.
  let overriddenForge = BenchContainer()
  let mockLeaf = Leaf()
  overriddenForge.override(\.cachedLeaf) { mockLeaf }
  let overriddenPod = SwiftPod()
  overriddenPod.overrideProvider(podCachedLeaf) { _ in mockLeaf }
  let overriddenFetcher = Fetcher.create().addOverride(for: .benchLeaf, instance: mockLeaf).done()
  let swinjectChild = Swinject.Container(parent: swinject)
  swinjectChild.register(Leaf.self, name: "cached") { _ in mockLeaf }.inObjectScope(.container)

  measure("7 override active", "hand-written") { hand.cachedLeaf() }
  measure("7 override active", "Forge override(_:with:)") { overriddenForge.cachedLeaf }
  Benchmark("7 override active / Forge withOverrides") { benchmark in
    forge.withOverrides {
      $0.override(\.cachedLeaf) { mockLeaf }
    } run: {
      for _ in benchmark.scaledIterations { blackHole(forge.cachedLeaf) }
    }
  }
  measure("7 override active", "SwiftPod") { overriddenPod.resolve(podCachedLeaf) }
  measure("7 override active", "DependencyFetcher") { overriddenFetcher.fetch(.benchLeaf) }
  measure("7 override active", "Swinject (child container)") { swinjectChild.resolve(Leaf.self, name: "cached")! }
  Benchmark("7 override active / swift-dependencies") { benchmark in
    withDependencies {
      $0.benchLeaf = mockLeaf
    } operation: {
      for _ in benchmark.scaledIterations { blackHole(swiftDependenciesLeaf()) }
    }
  }

  // 8. A cached hit of an async dependency, awaited.
  func measureAsync(_ scenario: String, _ system: String, _ body: @escaping @Sendable () async throws -> Any) {
    Benchmark("\(scenario) / \(system)") { benchmark in
      for _ in benchmark.scaledIterations { blackHole(try await body()) }
    }
  }
  let handAsync = HandAsync()
  let asyncForge = AsyncBenchContainer()
  let asyncInject = makeAsyncInjectContainer()
  let asyncPod = SwiftPod()
  let asyncFetcher = Fetcher.createDefault()
  measureAsync("8 async cached hit", "hand-written") { await handAsync.cachedLeaf() }
  measureAsync("8 async cached hit", "Forge") { try await asyncForge.leaf.value }
  measureAsync("8 async cached hit", "ForgeInject") { try await asyncInject.resolveAsync(Leaf.self) }
  measureAsync("8 async cached hit", "SwiftPod") { try await asyncPod.resolve(podAsyncLeaf) }
  measureAsync("8 async cached hit", "DependencyFetcher") { try await asyncFetcher.fetch(asyncServiceLeaf) }

  // 9. 64 tasks resolve one async singleton for the first time: one build,
  // timed until the last task has its instance. A fresh container each
  // iteration.
  func measureFirst(_ system: String, _ make: @escaping @Sendable () -> @Sendable () async throws -> Leaf) {
    Benchmark("9 async 64 first resolutions / \(system)", configuration: .init(scalingFactor: .one)) { benchmark in
      for _ in benchmark.scaledIterations {
        let resolve = make()
        benchmark.startMeasurement()
        await firstResolutions(64, resolve)
        benchmark.stopMeasurement()
      }
    }
  }
  measureFirst("hand-written") {
    let flight = HandSingleFlight()
    return { await flight.value() }
  }
  measureFirst("Forge") {
    let container = AsyncBenchContainer()
    return { try await container.leaf.value }
  }
  measureFirst("ForgeInject") {
    let container = makeAsyncInjectContainer()
    return { try await container.resolveAsync(Leaf.self) }
  }
  measureFirst("SwiftPod") {
    let pod = SwiftPod()
    return { try await pod.resolve(podAsyncLeaf) }
  }
  measureFirst("DependencyFetcher") {
    let fetcher = Fetcher.createDefault()
    return { try await fetcher.fetch(asyncServiceLeaf) }
  }

  // 10. A kept main-actor dependency read on the main actor: the loop runs
  // on the main actor, so each read is synchronous.
  func measureMainActor(_ system: String, _ read: @escaping @MainActor () throws -> AnyObject) {
    Benchmark("10 main-actor hit / \(system)") { benchmark in
      try await MainActor.run {
        for _ in benchmark.scaledIterations { blackHole(try read()) }
      }
    }
  }
  let handMain = HandMainActor()
  let mainForge = MainActorBenchContainer()
  let mainInject = makeMainActorInjectContainer()
  let mainPod = SwiftPod()
  let mainFetcher = Fetcher.createDefault()
  measureMainActor("hand-written") { handMain.leaf }
  measureMainActor("Forge") { mainForge.leaf.value }
  measureMainActor("ForgeInject") { try mainInject.resolve() as Leaf }
  measureMainActor("SwiftPod") { mainPod.resolve(podMainActorLeaf) }
  measureMainActor("DependencyFetcher") { mainFetcher.fetch(mainActorServiceLeaf) }

  // 11. `validate()` of one root, the chain A(B(C)) (DependencyFetcher: a
  // leaf service, as it has no chain), what a test that checks one
  // dependency's graph pays: it builds in isolation, on a thread of its own
  // (the dialects' resolutions cannot throw, so a failing root parks its
  // thread). Hand-written: the same chain built by hand, for scale.
  func measureValidation(_ system: String, _ validate: @escaping @Sendable () -> Any) {
    Benchmark("11 validate one root / \(system)", configuration: .init(scalingFactor: .one)) { benchmark in
      for _ in benchmark.scaledIterations { blackHole(validate()) }
    }
  }
  let validatedInject = ForgeContainer()
  validatedInject.register(with: .singleton) { _ in ChainC() }
  validatedInject.register(with: .transient) { container in ChainB(c: try container.resolve()) }
  validatedInject.register(with: .transient) { container in ChainA(b: try container.resolve()) }
  measureValidation("hand-written") { hand.chain() }
  measureValidation("Forge") { forge.validate(\.chainA) }
  measureValidation("ForgeInject") { validatedInject.validate() }
  measureValidation("SwiftPod") { pod.validate(podChainA) }
  measureValidation("DependencyFetcher") { fetcher.validate(.benchLeaf) }

  // 12. `validate()` of scenario 4's graph of 50 nodes (every third a
  // singleton), from its root: what a test that checks a whole app's graph
  // pays. ForgeInject has no root to name: it checks every registration
  // (the 50 nodes and scenarios 1–3's five), each from a root of its own,
  // so a node's subgraph is built again in every root that reaches it.
  func measureGraphValidation(_ system: String, _ validate: @escaping @Sendable () -> Any) {
    Benchmark("12 validate graph of 50 / \(system)", configuration: .init(scalingFactor: .one)) { benchmark in
      for _ in benchmark.scaledIterations { blackHole(validate()) }
    }
  }
  measureGraphValidation("hand-written") { hand.graphRoot() }
  measureGraphValidation("Forge") { forge.validate(\.graphRoot) }
  measureGraphValidation("ForgeInject") { inject.validate() }
  measureGraphValidation("SwiftPod") { pod.validate(podGraph[0]) }
}
