import DependencyFetcher
import Forge
import ForgeInject
import ForgeTestSupport
import ForgeTesting
import Foundation
import SwiftPod
import Testing

/// A label every dialect serves, "real" unless a test overrides it, and a
/// singleton built from it, so that an override must reach a dependent.
struct Label: Sendable, Equatable {
  let text: String
}

final class LabelContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = LabelContainer()
  var label: Label { provide(.singleton) { Label(text: "real") } }
  var greeting: String { provide(.singleton) { "hello, \(self.label.text)" } }
  var asyncLabel: AsyncDependency<Label> { provide(.singleton) { Label(text: "real") } }
}

let labelPod = SwiftPod()
let labelProvider = Provider("label") { _ in Label(text: "real") }
let podGreetingProvider = Provider("greeting") { pod in "hello, \(pod.resolve(labelProvider).text)" }
let asyncLabelProvider = AsyncProvider("async label") { _ in Label(text: "real") }

let labelFetcher = Fetcher.createDefault()
extension Service where T == Label {
  static let label = Service("label") { Label(text: "real") }
}
extension Service where T == String {
  static let greeting = Service("greeting") { fetcher in "hello, \(fetcher.fetch(.label).text)" }
}
extension AsyncService where T == Label {
  static let asyncLabel = AsyncService("async label") { _ in Label(text: "real") }
}

/// Registered by the tests that use it only.
struct Unregistered: Sendable, Equatable {
  let text: String
}

let labelInjectContainer: ForgeContainer = {
  let container = ForgeContainer()
  container.register(with: .singleton) { _ in Label(text: "real") }
  container.register(with: .singleton) { container in
    "hello, \((try container.resolve() as Label).text)"
  }
  return container
}()

/// The greetings of every dialect's container, in one list.
func greetings() throws -> [String] {
  [
    LabelContainer.shared.greeting,
    labelPod.resolve(podGreetingProvider),
    labelFetcher.fetch(.greeting),
    try labelInjectContainer.resolve() as String,
  ]
}

/// Overrides the label in every dialect with "`text` (dialect)".
@Sendable func overrideEveryLabel(_ overrides: inout TestOverrides, with text: String) {
  overrides.override(\LabelContainer.label, in: .shared) { Label(text: "\(text) forge") }
  overrides.overrideProvider(labelProvider, in: labelPod) { _ in Label(text: "\(text) pod") }
  overrides.addOverride(for: .label, in: labelFetcher) { Label(text: "\(text) fetcher") }
  overrides.register(in: labelInjectContainer, with: .singleton) { _ in Label(text: "\(text) inject") }
}

let everyLabelContainer: [any DependencyContainer] = [
  LabelContainer.shared, labelPod, labelFetcher, labelInjectContainer,
]

@Suite("ForgeTesting: overrides declared in every dialect", .timeLimit(.minutes(1)))
struct TestOverridesTests {
  @Test(
    "the trait's overrides reach each dialect's dependents",
    .isolated(LabelContainer.shared, labelPod, labelFetcher, labelInjectContainer) {
      overrideEveryLabel(&$0, with: "mock")
    })
  func trait() throws {
    #expect(
      try greetings() == ["hello, mock forge", "hello, mock pod", "hello, mock fetcher", "hello, mock inject"])
  }

  @Test("tests running at the same time see their own overrides, in every dialect")
  func parallel() async throws {
    // Built outside any test first: a scope must not serve these.
    let real = ["hello, real", "hello, real", "hello, real", "hello, real"]
    #expect(try greetings() == real)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for number in 0..<16 {
        group.addTask {
          let overridden = number.isMultiple(of: 2)
          try await withIsolatedContainers(LabelContainer.shared, labelPod, labelFetcher, labelInjectContainer) {
            if overridden { overrideEveryLabel(&$0, with: "case \(number)") }
          } operation: {
            let expected =
              overridden
              ? ["forge", "pod", "fetcher", "inject"].map { "hello, case \(number) \($0)" } : real
            for _ in 0..<3 {
              #expect(try greetings() == expected)
              try await Task.sleep(for: .milliseconds(2))
            }
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try greetings() == real)
  }

  @Test("an override that keeps its instance keeps one per test")
  func keptPerTest() {
    let pod = SwiftPod()
    let builds = Counter()
    let declare: (inout TestOverrides) -> Void = {
      $0.overrideProvider(labelProvider, in: pod) { _ in
        builds.increment()
        return Label(text: "mock")
      }
    }
    withIsolatedContainers(pod, overrides: declare) {
      #expect(pod.resolve(labelProvider) == Label(text: "mock"))
      #expect(pod.resolve(podGreetingProvider) == "hello, mock")
    }
    #expect(builds.count == 1)
    withIsolatedContainers(pod, overrides: declare) {
      _ = pod.resolve(labelProvider)
    }
    #expect(builds.count == 2)
    #expect(pod.resolve(labelProvider) == Label(text: "real"))
  }

  @Test("a ForgeInject test registration serves a type the container does not register")
  func unregisteredType() throws {
    let container = ForgeContainer()
    try withIsolatedContainers(container) {
      $0.register(in: container, with: .transient) { _ in Unregistered(text: "mock") }
    } operation: {
      let resolved: Unregistered = try container.resolve()
      #expect(resolved == Unregistered(text: "mock"))
    }
    #expect(throws: ForgeContainerError.self) { try container.resolve() as Unregistered }
  }

  @Test("a ForgeInject test registration with an async builder, registered or not")
  func injectAsynchronous() async throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ async in Label(text: "real") }
    let builds = Counter()
    try await withIsolatedContainers(container) {
      $0.register(in: container, with: .singleton) { _ async in
        builds.increment()
        return Label(text: "mock")
      }
      $0.register(in: container, with: .transient) { _ async in Unregistered(text: "mock") }
    } operation: {
      let first: Label = try await container.resolveAsync()
      let second: Label = try await container.resolveAsync()
      let unregistered: Unregistered = try await container.resolveAsync()
      #expect([first, second] == [Label(text: "mock"), Label(text: "mock")])
      #expect(unregistered == Unregistered(text: "mock"))
    }
    #expect(builds.count == 1)
    let after: Label = try await container.resolveAsync()
    #expect(after == Label(text: "real"))
  }

  @Test("asynchronous providers and services are overridden for the test too")
  func asynchronous() async throws {
    let pod = SwiftPod()
    let fetcher = Fetcher.createDefault()
    let container = LabelContainer()
    try await withIsolatedContainers(pod, fetcher, container) {
      $0.override(\LabelContainer.asyncLabel, in: container) { Label(text: "forge mock") }
      $0.overrideProvider(asyncLabelProvider, in: pod) { _ in Label(text: "pod mock") }
      $0.addOverride(for: .asyncLabel, in: fetcher) { _ in Label(text: "fetcher mock") }
    } operation: {
      let fromPod = try await pod.resolve(asyncLabelProvider)
      let fromFetcher = try await fetcher.fetch(.asyncLabel)
      let fromForge = try await container.asyncLabel.value
      #expect(fromForge == Label(text: "forge mock"))
      #expect(fromPod == Label(text: "pod mock"))
      #expect(fromFetcher == Label(text: "fetcher mock"))
    }
    #expect(try await pod.resolve(asyncLabelProvider) == Label(text: "real"))
    #expect(try await fetcher.fetch(.asyncLabel) == Label(text: "real"))
    #expect(try await container.asyncLabel.value == Label(text: "real"))
  }
}

/// A weak ForgeInject registration built from a label.
final class LabelHolder: Sendable {
  let label: Label
  init(label: Label) { self.label = label }
}

@Suite("ForgeInject: weak registrations in an isolated test", .timeLimit(.minutes(1)))
struct WeakIsolationTests {
  static func container(counting holders: Counter) -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Label(text: "real") }
    container.register(with: .weak) { container in
      holders.increment()
      return LabelHolder(label: try container.resolve())
    }
    return container
  }

  @Test("built from the test's registration: shared while held, built again once released, never the container's")
  func weakReachingTheTest() throws {
    let holders = Counter()
    let container = Self.container(counting: holders)
    let real: LabelHolder = try container.resolve()
    let labels = Counter()
    try withIsolatedContainers(container) {
      $0.register(in: container, with: .singleton) { _ in
        labels.increment()
        return Label(text: "mock")
      }
    } operation: {
      var first: LabelHolder? = try container.resolve()
      #expect(first?.label == Label(text: "mock"))
      #expect(first !== real)
      #expect(try container.resolve() as LabelHolder === first)
      #expect(holders.count == 2)
      first = nil
      // Released: the test's scope held it weakly, so the next read builds
      // another, from the test's label (built once for the test).
      let second: LabelHolder = try container.resolve()
      #expect(second.label == Label(text: "mock"))
      #expect(holders.count == 3)
      #expect(try container.resolve() as LabelHolder === second)
      #expect(labels.count == 1)
    }
    #expect(try container.resolve() as LabelHolder === real)
    #expect(holders.count == 3)
  }
}

@Suite("ForgeInject: a builder that throws inside an isolated test", .timeLimit(.minutes(1)))
struct ThrowingIsolationTests {
  struct Flaky: Error {}

  @Test("a singleton rebuilt for the test whose builder throws keeps nothing; the next resolution builds again")
  func throwingScopeBuild() throws {
    let attempts = Counter()
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Label(text: "real") }
    container.register(with: .singleton) { container in
      let label: Label = try container.resolve()
      if label.text == "mock", attempts.incremented() == 1 { throw Flaky() }
      return LabelHolder(label: label)
    }
    let real: LabelHolder = try container.resolve()
    try withIsolatedContainers(container) {
      $0.register(in: container, with: .singleton) { _ in Label(text: "mock") }
    } operation: {
      #expect(throws: (any Error).self) { try container.resolve() as LabelHolder }
      let rebuilt: LabelHolder = try container.resolve()
      #expect(rebuilt.label == Label(text: "mock"))
      #expect(try container.resolve() as LabelHolder === rebuilt)
      #expect(attempts.count == 2)
    }
    #expect(try container.resolve() as LabelHolder === real)
  }
}

@Suite("SwiftPod: a deep chain of singletons in an isolated test", .timeLimit(.minutes(1)))
struct DeepIsolationTests {
  @Test("an override of the bottom of 60 singleton levels rebuilds every level for the test only")
  func deepSingletonChain() {
    let pod = SwiftPod()
    var chain = [Provider<Int>("level 0") { _ in 1 }]
    for level in 1..<60 {
      let below = chain[level - 1]
      chain.append(Provider("level \(level)") { pod in pod.resolve(below) + 1 })
    }
    #expect(pod.resolve(chain[59]) == 60)
    withIsolatedContainers(pod) {
      $0.overrideProvider(chain[0], in: pod) { _ in 1000 }
    } operation: {
      #expect(pod.resolve(chain[59]) == 1059)
      #expect(pod.resolve(chain[30]) == 1030)
    }
    #expect(pod.resolve(chain[59]) == 60)
    #expect(pod.resolve(chain[30]) == 31)
  }
}

@Suite("DependencyFetcher: the other forms of a test's override", .timeLimit(.minutes(1)))
struct FetcherOverrideFormTests {
  @Test("an override that fetches from the fetcher, and one that hands out an instance")
  func otherForms() {
    let fetcher = Fetcher.createDefault()
    withIsolatedContainers(fetcher) {
      $0.addOverride(for: .label, in: fetcher, instance: Label(text: "given"))
    } operation: {
      #expect(fetcher.fetch(.label) == Label(text: "given"))
      #expect(fetcher.fetch(.greeting) == "hello, given")
    }
    withIsolatedContainers(fetcher) {
      $0.addOverride(for: .label, in: fetcher, instance: Label(text: "inner"))
      $0.addOverride(for: .greeting, in: fetcher) { fetcher in "hi, \(fetcher.fetch(.label).text)" }
    } operation: {
      #expect(fetcher.fetch(.greeting) == "hi, inner")
    }
    #expect(fetcher.fetch(.greeting) == "hello, real")
  }
}
