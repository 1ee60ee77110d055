import DependencyFetcher
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
