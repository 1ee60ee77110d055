import SwiftPod
import Testing

@Suite("SwiftPod", .timeLimit(.minutes(1)))
struct SwiftPodTests {
  let pod = SwiftPod()

  @Test("providers default to SingletonScope and cache for the pod's lifetime")
  func singletonDefault() {
    let provider = Provider { _ in Thing() }
    #expect(provider.scope is SingletonScope)
    #expect(pod.resolve(provider) === pod.resolve(provider))
    #expect(SwiftPod().resolve(provider) !== pod.resolve(provider))
  }

  @Test("AlwaysCreateNewScope never caches")
  func alwaysNew() {
    let provider = Provider(scope: AlwaysCreateNewScope()) { _ in Thing() }
    #expect(pod.resolve(provider) !== pod.resolve(provider))
  }

  @Test("the type is inferred from the closure or given explicitly")
  func types() {
    let number = Provider { _ in 123 }
    let explicit = Provider<any Sendable> { _ in "text" }
    let resolvedNumber: Int = pod.resolve(number)
    #expect(resolvedNumber == 123)
    #expect(pod.resolve(explicit) as? String == "text")
  }

  @Test("builders resolve other providers through the pod parameter")
  func nested() {
    let leaf = Provider { _ in Thing("leaf") }
    let root = Provider { pod in [pod.resolve(leaf)] }
    #expect(pod.resolve(root)[0] === pod.resolve(leaf))
  }

  @Test("two providers of the same type are independent, each with its own cache")
  func independent() {
    let title = Provider { _ in "My cool app" }
    let description = Provider { _ in "This is a really exciting and cool app" }
    #expect(pod.resolve(title) == "My cool app")
    #expect(pod.resolve(description) == "This is a really exciting and cool app")
  }

  @Test("clearing a scope clears its descendants; clearing a child leaves the parent")
  func hierarchicalClear() {
    let parent = Provider(scope: SignUpScope()) { _ in Thing("parent") }
    let child = Provider(scope: SignUpStepScope()) { _ in Thing("child") }
    let unrelated = Provider(scope: UnrelatedScope()) { _ in Thing("unrelated") }
    let singleton = Provider { _ in Thing("singleton") }
    let (p, c, u, s) = (pod.resolve(parent), pod.resolve(child), pod.resolve(unrelated), pod.resolve(singleton))

    pod.clearCachedInstances(forScope: SignUpStepScope())
    #expect(pod.resolve(parent) === p)
    #expect(pod.resolve(child) !== c)

    let c2 = pod.resolve(child)
    pod.clearCachedInstances(forScope: SignUpScope())  // a fresh value names the same scope
    #expect(pod.resolve(parent) !== p)
    #expect(pod.resolve(child) !== c2)
    #expect(pod.resolve(unrelated) === u)
    #expect(pod.resolve(singleton) === s)
  }

  @Test("clearing SingletonScope or AlwaysCreateNewScope does nothing, and looping children end")
  func clearIgnored() {
    let singleton = Provider { _ in Thing() }
    let first = pod.resolve(singleton)
    pod.clearCachedInstances(forScope: SingletonScope())
    pod.clearCachedInstances(forScope: AlwaysCreateNewScope())
    pod.clearCachedInstances(forScope: LoopingScope())
    #expect(pod.resolve(singleton) === first)
  }

  @Test("an override replaces the builder, is cached like the original, and removal restores the original")
  func override() {
    let provider = Provider { _ in Thing("real") }
    let real = pod.resolve(provider)
    pod.overrideProvider(provider) { _ in Thing("mock") }
    let mock = pod.resolve(provider)
    #expect(mock.label == "mock")
    #expect(pod.resolve(provider) === mock)  // SingletonScope inherited
    pod.removeOverrideProvider(provider)
    #expect(pod.resolve(provider) === real)
  }

  @Test("an override with its own scope is cached and cleared under that scope")
  func overrideScope() {
    let provider = Provider(scope: AlwaysCreateNewScope()) { _ in Thing("real") }
    pod.overrideProvider(provider, with: { _ in Thing("mock") }, scope: SignUpScope())
    let mock = pod.resolve(provider)
    #expect(pod.resolve(provider) === mock)
    pod.clearCachedInstances(forScope: SignUpScope())
    #expect(pod.resolve(provider) !== mock)
  }

  @Test("overriding again drops the instance the previous override cached")
  func overrideAgain() {
    let provider = Provider { _ in Thing("real") }
    pod.overrideProvider(provider) { _ in Thing("first") }
    _ = pod.resolve(provider)
    pod.overrideProvider(provider) { _ in Thing("second") }
    #expect(pod.resolve(provider).label == "second")
    pod.removeOverrideProvider(provider)
    #expect(pod.resolve(provider).label == "real")
  }

  @Test("many tasks resolving one singleton provider get one instance, built once")
  func concurrent() async {
    for _ in 0..<10 {
      let builds = Counter()
      let provider = Provider { _ in
        builds.increment()
        return Thing()
      }
      let pod = SwiftPod()
      let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
        for _ in 0..<32 { group.addTask { ObjectIdentifier(pod.resolve(provider)) } }
        return await group.reduce(into: Set()) { $0.insert($1) }
      }
      #expect(ids.count == 1)
      #expect(builds.count == 1)
    }
  }

  @Test("releasing a pod releases its cached instances")
  func release() {
    let provider = Provider { _ in Thing() }
    weak var kept: Thing?
    do {
      let local = SwiftPod()
      kept = local.resolve(provider)
      #expect(kept != nil)
    }
    #expect(kept == nil)
  }

  @Test("a provider cycle stops with the full path instead of overflowing the stack")
  func cycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Box: @unchecked Sendable { var b: Provider<[Any]>? }
      let box = Box()
      let a = Provider<[Any]>("a") { pod in [pod.resolve(box.b!)] }
      let b = Provider<[Any]>("b", scope: AlwaysCreateNewScope()) { pod in [pod.resolve(a)] }
      box.b = b
      _ = SwiftPod().resolve(a)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("SwiftPod: [Forge.cycle] Dependency cycle: a → b → a."))
  }

  @Test("unnamed providers are named by their type and declaration in messages")
  func unnamedCycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Box: @unchecked Sendable { var provider: Provider<Int>? }
      let box = Box()
      let selfish = Provider<Int> { pod in pod.resolve(box.provider!) }
      box.provider = selfish
      _ = SwiftPod().resolve(selfish)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    // Inside an exit test, `#line` is the test macro's own line.
    #expect(stderr.contains("Dependency cycle: Provider<Swift.Int> (SwiftPodTests.swift:"), "\(stderr)")
  }

  @Test("two unnamed providers of one type are told apart by where they are declared")
  func unnamedProvidersApart() {
    let report = SwiftPod().validate(UnnamedCycle.first)
    let first = "Provider<Swift.Int> (SwiftPodTests.swift:\(UnnamedCycle.firstLine))"
    let second = "Provider<Swift.Int> (SwiftPodTests.swift:\(UnnamedCycle.firstLine + 1))"
    #expect(
      report.problems(.cycle).first?.description.contains("Dependency cycle: \(first) → \(second) → \(first).")
        == true, "\(report)")
  }

  @Test("an unnamed provider's default name says where it is declared; a given name is kept")
  func defaultNames() {
    #expect(Provider<Int> { _ in 1 }.name == "Provider<Swift.Int> (SwiftPodTests.swift:\(#line))")
    #expect(AsyncProvider<Int> { _ in 1 }.name == "AsyncProvider<Swift.Int> (SwiftPodTests.swift:\(#line))")
    #expect(MainActorProvider<Int> { _ in 1 }.name == "MainActorProvider<Swift.Int> (SwiftPodTests.swift:\(#line))")
    #expect(Provider<Int>("count") { _ in 1 }.name == "count")
  }
}

/// Two unnamed providers of one type that need each other.
enum UnnamedCycle {
  static let first: Provider<Int> = Provider { pod in pod.resolve(second) }
  static let second: Provider<Int> = Provider(scope: AlwaysCreateNewScope()) { pod in pod.resolve(first) }
  static let firstLine = #line - 2
}
