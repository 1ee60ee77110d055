import DependencyFetcher
import ForgeTestSupport
import Testing

let sharedBuilds = Counter()

extension Service where T == Thing {
  static let thing = Service { Thing("made") }
  static let counted = Service { () -> Thing in
    sharedBuilds.increment()
    return Thing("counted")
  }
  static let existing = Service(Thing("existing"))
}

@Suite("DependencyFetcher", .timeLimit(.minutes(1)))
struct FetcherTests {
  @Test("a fetcher makes each service once and returns the same instance afterwards")
  func cachedPerFetcher() {
    let fetcher = Fetcher.createDefault()
    let first = fetcher.fetch(.thing)
    #expect(first.label == "made")
    #expect(fetcher.fetch(.thing) === first)
    #expect(Fetcher.createDefault().fetch(.thing) !== first)
  }

  @Test("a service can be an existing instance, and exposes its closure")
  func existingInstance() {
    #expect(Fetcher.createDefault().fetch(.existing).label == "existing")
    #expect(Service<Thing>.existing.makeService() === Service<Thing>.existing.makeService())
  }

  @Test("overrides by instance and by closure; every done() gives a new, independent fetcher")
  func overrides() {
    let mock = Thing("mock")
    let builder = Fetcher.create()
      .addOverride(for: Service.thing, instance: mock)
      .addOverride(for: Service.existing, makeService: { Thing("made by override") })
    let one = builder.done()
    let two = builder.done()
    #expect(one.fetch(.thing) === mock)
    #expect(one.fetch(.existing).label == "made by override")
    #expect(one.fetch(.existing) === one.fetch(.existing))
    #expect(two.fetch(.existing) !== one.fetch(.existing))
    #expect(Fetcher.createDefault().fetch(.thing) !== mock)
  }

  @Test("concurrent fetches make a service once")
  func concurrent() async {
    let fetcher = Fetcher.createDefault()
    let before = sharedBuilds.count
    let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<32 { group.addTask { ObjectIdentifier(fetcher.fetch(.counted)) } }
      return await group.reduce(into: Set()) { $0.insert($1) }
    }
    #expect(ids.count == 1)
    #expect(sharedBuilds.count == before + 1)
  }

  @Test("a service whose closure fetches another service from the same fetcher works")
  func nestedFetch() {
    // Weak: the fetcher keeps the service, whose closure reaches the fetcher.
    final class Ref: @unchecked Sendable { weak var fetcher: Fetcher? }
    let ref = Ref()
    let inner = Service { Thing("inner") }
    let outer = Service { [ref.fetcher!.fetch(inner)] }
    let fetcher = Fetcher.createDefault()
    ref.fetcher = fetcher
    #expect(fetcher.fetch(outer)[0] === fetcher.fetch(inner))
  }

  @Test("unnamed services are named by their type and declaration in messages")
  func unnamedCycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Ref: @unchecked Sendable { var service: Service<Int>? }
      let ref = Ref()
      let fetcher = Fetcher.createDefault()
      ref.service = Service<Int> { fetcher.fetch(ref.service!) }
      _ = fetcher.fetch(ref.service!)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    // Inside an exit test, `#line` is the test macro's own line.
    #expect(stderr.contains("Dependency cycle: Service<Swift.Int> (FetcherTests.swift:"), "\(stderr)")
  }

  @Test("an unnamed service's default name says where it is declared; a given name is kept")
  func defaultNames() {
    #expect(Service<Int> { 1 }.name == "Service<Swift.Int> (FetcherTests.swift:\(#line))")
    #expect(Service<Int> { _ in 1 }.name == "Service<Swift.Int> (FetcherTests.swift:\(#line))")
    #expect(AsyncService<Int> { _ in 1 }.name == "AsyncService<Swift.Int> (FetcherTests.swift:\(#line))")
    #expect(MainActorService<Int> { _ in 1 }.name == "MainActorService<Swift.Int> (FetcherTests.swift:\(#line))")
    #expect(Service<Int>("count") { 1 }.name == "count")
  }

  @Test("releasing a fetcher releases its instances")
  func release() {
    let service = Service { Thing() }
    weak var kept: Thing?
    do {
      let fetcher = Fetcher.createDefault()
      kept = fetcher.fetch(service)
      #expect(kept != nil)
    }
    #expect(kept == nil)
  }

  @Test("a cycle stops with the full path")
  func cycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Ref: @unchecked Sendable {
        var fetcher: Fetcher?
        var b: Service<[Any]>?
      }
      let ref = Ref()
      let a = Service<[Any]>("a") { [ref.fetcher!.fetch(ref.b!)] }
      ref.b = Service<[Any]>("b") { [ref.fetcher!.fetch(a)] }
      ref.fetcher = Fetcher.createDefault()
      _ = ref.fetcher!.fetch(a)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("DependencyFetcher: [Forge.cycle] Dependency cycle: a → b → a."))
  }
}
