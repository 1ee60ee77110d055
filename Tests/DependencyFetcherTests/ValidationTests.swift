import DependencyFetcher
import ForgeTestSupport
import Testing

/// Services with a cycle, and sound ones.
enum ValidatedServices {
  final class Part: Sendable {
    let parts: [Part]
    init(_ parts: [Part] = []) { self.parts = parts }
  }
}

extension Service where T == ValidatedServices.Part {
  static let loopA: Service<ValidatedServices.Part> = Service("loopA") { fetcher in
    ValidatedServices.Part([fetcher.fetch(.loopB)])
  }
  static let loopB: Service<ValidatedServices.Part> = Service("loopB") { fetcher in
    ValidatedServices.Part([fetcher.fetch(.loopA)])
  }
  static let validatedLeaf = Service("leaf") { ValidatedServices.Part() }
  static let validatedRoot: Service<ValidatedServices.Part> = Service("root") { fetcher in
    ValidatedServices.Part([fetcher.fetch(.validatedLeaf)])
  }
  static let countedLeaf = Service("countedLeaf") {
    ValidatedServices.countedBuilds.withLock { $0 += 1 }
    return ValidatedServices.Part()
  }
  static let countedRoot: Service<ValidatedServices.Part> = Service("countedRoot") { fetcher in
    ValidatedServices.Part([fetcher.fetch(.countedLeaf)])
  }
}

extension ValidatedServices {
  static let countedBuilds = Guarded(0)
}

@Suite("DependencyFetcher: validate()", .timeLimit(.minutes(1)))
struct ValidationTests {
  @Test("a cycle is reported with its path, and the fetcher goes on")
  func broken() {
    let fetcher = Fetcher.createDefault()
    let report = fetcher.validate(Service.loopA, Service.validatedRoot)
    #expect(report.problems.map(\.id) == [.cycle])
    #expect(report.problems[0].description.hasPrefix("[Forge.cycle] Dependency cycle: loopA → loopB → loopA."))
    #expect(report.graph.node(named: "root")?.status == .ok)
    #expect(report.graph.node(named: "loopA")?.status == .failed)
    #expect(report.graph.node(named: "loopB")?.status == .affected)
  }

  @Test("a sound graph gives an empty report, and the fetcher makes its own instances afterwards")
  func sound() {
    let fetcher = Fetcher.createDefault()
    let report = fetcher.validate(Service.validatedRoot)
    #expect(report.isValid, "\(report)")
    #expect(report.checked == ["root", "leaf"])
    let leaf = fetcher.fetch(.validatedLeaf)
    #expect(fetcher.fetch(.validatedRoot).parts[0] === leaf)
  }
}

@Suite("DependencyFetcher: validate() after the fetcher fetched", .timeLimit(.minutes(1)))
struct ValidationAfterFetchingTests {
  @Test("validation builds its own instances and leaves the fetchers', and their cached reads, as they were")
  func buildsApart() {
    let fetcher = Fetcher.createDefault()
    let other = Fetcher.createDefault()
    let kept = fetcher.fetch(.countedRoot)
    let otherKept = other.fetch(.countedRoot)
    let before = ValidatedServices.countedBuilds.withLock { $0 }
    // The service now caches a slot of one of the fetchers; validating
    // either must not serve (or replace) what that slot holds.
    for validated in [fetcher, other] {
      let report = validated.validate(Service.countedRoot)
      #expect(report.isValid, "\(report)")
      #expect(report.checked == ["countedRoot", "countedLeaf"])
    }
    #expect(ValidatedServices.countedBuilds.withLock { $0 } == before + 2)
    #expect(fetcher.fetch(.countedRoot) === kept)
    #expect(other.fetch(.countedRoot) === otherKept)
    #expect(fetcher.fetch(.countedLeaf) === kept.parts[0])
    #expect(ValidatedServices.countedBuilds.withLock { $0 } == before + 2)
  }
}
