import Forge
import ForgeTestSupport
import Testing

/// One of each problem Forge can have.
final class BrokenContainer: Container, @unchecked Sendable {
  final class Session: Sendable {
    let user: Service
    init(user: Service) { self.user = user }
  }

  // A cycle: first → second → first.
  var first: [Any] { provide(.singleton) { [self.second] } }
  var second: [Any] { provide(.cached) { [self.first] } }
  // A type mismatch: the factory returns a String for an Int.
  var port: Int { provide(.singleton) { "8080" } }
  // An unimplemented proxy nobody overrode.
  var analytics: [Any] { provide(.singleton) { unimplemented("analytics") } }
  // A captive dependency: a singleton holding a cached instance.
  var user: Service { provide(.cached) { Service("grace") } }
  var session: Session { provide(.singleton) { Session(user: self.user) } }
  // Fine on its own.
  var clock: [Any] { provide(.singleton) { ["tick"] } }
}

/// A captive dependency two levels below the root: `screen` (transient)
/// holds `session` (singleton), which holds `user` (cached).
final class DeepCaptiveContainer: Container, @unchecked Sendable {
  final class Holder<Held: Sendable>: Sendable {
    let held: Held
    init(_ held: Held) { self.held = held }
  }
  var user: Service { provide(.cached) { Service("ada") } }
  var session: Holder<Service> { provide(.singleton) { Holder(self.user) } }
  var screen: Holder<Holder<Service>> { provide(.transient) { Holder(self.session) } }
}

final class SoundContainer: Container, @unchecked Sendable {
  /// How many times each factory ran.
  let builds = Guarded<[String: Int]>([:])
  func count(_ name: String) { builds.withLock { $0[name, default: 0] += 1 } }

  var network: Service {
    provide(.singleton) {
      self.count("network")
      return Service("network")
    }
  }
  var api: [Service] {
    provide(.singleton) {
      self.count("api")
      return [self.network]
    }
  }
  var viewModel: [[Service]] {
    provide {
      self.count("viewModel")
      return [self.api]
    }
  }
}

@Suite("Forge: validate()", .timeLimit(.minutes(1)))
struct ValidationTests {
  @Test("a sound graph gives an empty report")
  func sound() {
    let report = SoundContainer().validate(\.viewModel)
    #expect(report.isValid, "\(report)")
    #expect(report.problems.isEmpty)
    #expect(report.checked == ["SoundContainer.viewModel", "SoundContainer.api", "SoundContainer.network"])
    #expect(report.description == "Validation found no problem in 3 dependencies.\n")
  }

  @Test("a broken graph reports every problem once, each with its chain, instead of stopping")
  func broken() {
    let container = BrokenContainer()
    let report = container.validate(\.first, \.port, \.analytics, \.session, \.clock)
    #expect(!report.isValid)
    #expect(report.problems.map(\.id) == [.cycle, .typeMismatch, .unimplemented, .lifetimeMismatch])
    #expect(report.problems(.cycle).map(\.dependency) == ["BrokenContainer.first"])
    #expect(
      report.problems(.cycle).first?.description.contains(
        "Dependency cycle: BrokenContainer.first → BrokenContainer.second → BrokenContainer.first") == true)
    #expect(report.problems(.typeMismatch).first?.dependency == "BrokenContainer.port")
    #expect(report.problems(.unimplemented).first?.chain == ["BrokenContainer.analytics"])
    let captive = report.problems(.lifetimeMismatch).first
    #expect(captive?.dependency == "BrokenContainer.user")
    #expect(captive?.chain == ["BrokenContainer.session", "BrokenContainer.user"])
    #expect(
      captive?.description
        == """
        [Forge.lifetimeMismatch] BrokenContainer.session (singleton) holds BrokenContainer.user (cached), \
        which is kept for less long. Chain: BrokenContainer.session → BrokenContainer.user. A reset that \
        replaces BrokenContainer.user leaves BrokenContainer.session holding the old instance, so the two \
        disagree from then on. To fix it, give BrokenContainer.session a lifetime no longer than cached, \
        keep BrokenContainer.user as long as singleton, or have BrokenContainer.session resolve \
        BrokenContainer.user each time it needs it instead of holding it.
        """)
    #expect(report.description.hasPrefix("Validation found 4 problems in "))
    #expect(report.description.split(separator: "\n").count == 5)
  }

  @Test("the report's graph marks failing nodes red and their dependents orange")
  func graphMarksFailures() {
    let report = BrokenContainer().validate(\.session, \.clock)
    let status = Dictionary(uniqueKeysWithValues: report.graph.nodes.map { ($0.name, $0.status) })
    #expect(status["BrokenContainer.user"] == .failed)
    #expect(status["BrokenContainer.session"] == .affected)
    #expect(status["BrokenContainer.clock"] == .ok)
    #expect(report.graph.mermaid.contains("classDef failed fill:#f88,stroke:#b00"))
    #expect(report.graph.dot.contains("color=red"))
    #expect(report.graph.json.contains(#""status": "affected""#))
  }

  @Test("the report's graph numbers nodes from the root and marks what depends on a failure, however far up")
  func graphStructure() {
    let report = DeepCaptiveContainer().validate(\.screen)
    #expect(report.problems(.lifetimeMismatch).map(\.dependency) == ["DeepCaptiveContainer.user"])
    // Breadth-first from the root: screen, then what it was built with.
    #expect(
      report.graph.nodes.map { "\($0.id) \($0.name) \($0.lifetime ?? "-") \($0.status)" } == [
        "n1 DeepCaptiveContainer.screen transient affected",
        "n2 DeepCaptiveContainer.session singleton affected",
        "n3 DeepCaptiveContainer.user cached failed",
      ])
    #expect(
      report.graph.edges == [
        DependencyGraph.Edge(from: "n1", to: "n2"),
        DependencyGraph.Edge(from: "n2", to: "n3"),
      ])
    #expect(
      report.checked == ["DeepCaptiveContainer.screen", "DeepCaptiveContainer.session", "DeepCaptiveContainer.user"])
  }

  @Test("validation builds in isolation: the container's caches are neither read nor written")
  func isolation() {
    let container = SoundContainer()
    let network = container.network
    #expect(container.builds.withLock { $0 } == ["network": 1])
    #expect(container.validate(\.viewModel).isValid)
    // Validation ran every factory once, for itself, the kept network included ...
    #expect(container.builds.withLock { $0 } == ["network": 2, "api": 1, "viewModel": 1])
    // ... and kept none of it: the container still serves its own network,
    // and builds api the first time it is asked for.
    #expect(container.network === network)
    _ = container.api
    _ = container.api
    #expect(container.builds.withLock { $0 } == ["network": 2, "api": 2, "viewModel": 1])
    #expect(container.api[0] === network)
  }

  @Test("overrides in force are used: an overridden unimplemented dependency validates")
  func overridesRespected() {
    let container = BrokenContainer()
    container.override(\.analytics) { ["mock"] }
    #expect(container.validate(\.analytics).isValid)
    let scoped = container.withOverrides {
      $0.override(\.port) { 8080 }
    } run: {
      container.validate(\.port)
    }
    #expect(scoped.isValid, "\(scoped)")
    #expect(!container.validate(\.port).isValid)
  }
}
