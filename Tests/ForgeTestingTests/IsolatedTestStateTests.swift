import Forge
import ForgeInject
import ForgeTestSupport
import ForgeTesting
import SwiftPod
import Testing

/// Counts its builds, so that a test can tell instances apart.
final class ResettingContainer: Container, @unchecked Sendable {
  let builds = Counter()
  var cachedThing: Thing { provide(.cached) { Thing("cached \(self.builds.incremented())") } }
  var singleThing: Thing { provide(.singleton) { Thing("singleton \(self.builds.incremented())") } }
}

/// A custom scope, which `clearCachedInstances(forScope:)` clears.
struct DraftScope: ProviderScope { let children: [ProviderScope] = [] }

@Suite("ForgeTesting: resets inside an isolated test", .timeLimit(.minutes(1)))
struct IsolatedResetTests {
  @Test("a test's resetCached() and resetAll() clear its own instances, not another test's or the container's")
  func resetsStayInTheTest() async {
    let container = ResettingContainer()
    let real = (cached: container.cachedThing, single: container.singleThing)
    let firstBuilt = Signal()
    let otherReset = Signal()
    async let first: (cached: Bool, single: Bool) = withIsolatedContainers(container) {
      let before = (cached: container.cachedThing, single: container.singleThing)
      firstBuilt.raise()
      while !otherReset.isRaised { await Task.yield() }
      return (container.cachedThing === before.cached, container.singleThing === before.single)
    }
    async let other: (cached: Bool, single: Bool) = withIsolatedContainers(container) {
      while !firstBuilt.isRaised { await Task.yield() }
      let before = (cached: container.cachedThing, single: container.singleThing)
      container.resetCached()
      let afterCached = (cached: container.cachedThing, single: container.singleThing)
      container.resetAll()
      let afterAll = container.singleThing
      otherReset.raise()
      // Its own instances went, each as its reset says.
      return (afterCached.cached !== before.cached, afterCached.single === before.single && afterAll !== before.single)
    }
    let (kept, cleared) = await (first, other)
    #expect(kept.cached && kept.single, "the other test's reset cleared this test's instances")
    #expect(cleared.cached && cleared.single, "a test's reset did not clear its own instances")
    #expect(container.cachedThing === real.cached && container.singleThing === real.single)
    // Outside any test, a reset clears the container's instances as before.
    container.resetCached()
    #expect(container.cachedThing !== real.cached)
  }

  @Test("resetAll() in an isolated test leaves the container's overrides, which serve every test")
  func resetAllKeepsContainerOverrides() {
    let container = ResettingContainer()
    container.override(\.cachedThing) { Thing("wired") }
    withIsolatedContainers(container) {
      container.resetAll()
      #expect(container.cachedThing.label == "wired")
    }
    #expect(container.cachedThing.label == "wired")
    container.resetAll()
    #expect(container.cachedThing.label == "cached 1")
  }

  @Test("SwiftPod: a test's clearCachedInstances(forScope:) clears its own instances only")
  func podClearStaysInTheTest() async {
    let pod = SwiftPod()
    let builds = Counter()
    let provider = Provider(scope: DraftScope()) { _ in Thing("\(builds.incremented())") }
    let real = pod.resolve(provider)
    let cleared: Bool = withIsolatedContainers(pod) {
      let before = pod.resolve(provider)
      pod.clearCachedInstances(forScope: DraftScope())
      return pod.resolve(provider) !== before
    }
    #expect(cleared)
    #expect(pod.resolve(provider) === real)
  }

  @Test("ForgeInject: a test's reset(preserving:) drops what its own registrations kept, as it would the container's")
  func resetDropsTestRegistrationInstances() throws {
    let container = ForgeContainer()
    let builds = Counter()
    try withIsolatedContainers(container) {
      container.register(with: .singleton) { _ in Thing("test \(builds.incremented())") }
      let before: Thing = try container.resolve()
      container.reset(preserving: [])
      let after: Thing = try container.resolve()
      #expect(after !== before)
      container.reset(preserving: [Thing.self])
      let preserved: Thing = try container.resolve()
      #expect(preserved === after)
    }
  }

  @Test("SwiftPod: a test's clearCachedInstances(forScope:) drops what its overrides cached under that scope")
  func podClearDropsTestOverrideInstances() {
    let pod = SwiftPod()
    let builds = Counter()
    let provider = Provider(scope: DraftScope()) { _ in Thing("real") }
    withIsolatedContainers(pod) {
      $0.overrideProvider(provider, in: pod) { _ in Thing("test \(builds.incremented())") }
    } operation: {
      let before = pod.resolve(provider)
      pod.clearCachedInstances(forScope: DraftScope())
      #expect(pod.resolve(provider) !== before)
    }
  }
}

protocol Startable: AnyObject {}
final class Poller: Startable {}
final class Indexer: Startable {}
final class Scheduler: Startable {}

@Suite("ForgeTesting: what an isolated test sees of its ForgeContainer", .timeLimit(.minutes(1)))
struct IsolatedResolveAllTests {
  @Test("resolveAll(conforming:) lists the test's own instances, not the container's")
  func resolveAllInTest() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Poller() }
    container.register(with: .singleton) { _ in Indexer() }
    let realPoller: Poller = try container.resolve()
    try withIsolatedContainers(container) {
      #expect(container.resolveAll(conforming: Startable.self).isEmpty)
      let poller: Poller = try container.resolve()
      let listed = container.resolveAll(conforming: Startable.self)
      #expect(listed.count == 1 && listed.first === poller)
      #expect(poller !== realPoller)
    }
    let listed = container.resolveAll(conforming: Startable.self)
    #expect(listed.count == 1 && listed.first === realPoller)
  }

  @Test("resolveAll(conforming:) lists what the test's own registrations of new types keep, in the order kept")
  func resolveAllListsTestOnlyRegistrations() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Poller() }
    try withIsolatedContainers(container) {
      container.register(with: .singleton) { _ in Indexer() }
      container.register(with: .singleton) { _ in Scheduler() }
      let scheduler: Scheduler = try container.resolve()
      let indexer: Indexer = try container.resolve()
      let poller: Poller = try container.resolve()
      let listed = container.resolveAll(conforming: Startable.self)
      #expect(listed.count == 3)
      #expect(listed.first === poller)
      #expect(listed.dropFirst().first === scheduler && listed.last === indexer)
    }
    #expect(container.resolveAll(conforming: Startable.self).isEmpty)
  }
}

@Suite("ForgeTesting: an observer added in an isolated test", .timeLimit(.minutes(1)))
struct IsolatedObserverTests {
  @Test("hears the test's resolutions only, not those of a test running beside it")
  func hearsItsTestOnly() async {
    let container = ResettingContainer()
    let firstObserving = Signal()
    let otherResolved = Signal()
    async let first: [String] = withIsolatedContainers(container) {
      let log = EventLog()
      let token = container.addObserver(log)
      firstObserving.raise()
      while !otherResolved.isRaised { await Task.yield() }
      _ = container.singleThing
      container.removeObserver(token)
      return log.lines
    }
    async let other: [String] = withIsolatedContainers(container) {
      while !firstObserving.isRaised { await Task.yield() }
      let log = EventLog()
      let token = container.addObserver(log)
      _ = container.cachedThing
      container.removeObserver(token)
      otherResolved.raise()
      return log.lines
    }
    let (firstLines, otherLines) = await (first, other)
    #expect(firstLines == ["requested ResettingContainer.singleThing", "built ResettingContainer.singleThing"])
    #expect(otherLines == ["requested ResettingContainer.cachedThing", "built ResettingContainer.cachedThing"])
    // Outside any test, an observer hears every resolution, as before.
    let log = EventLog()
    let token = container.addObserver(log)
    _ = withIsolatedContainers(container) { container.cachedThing }
    container.removeObserver(token)
    #expect(log.lines == ["requested ResettingContainer.cachedThing", "built ResettingContainer.cachedThing"])
  }
}

/// A container whose label a test overrides with the container's own API.
final class OwnLabelContainer: Container, @unchecked Sendable {
  var label: String { provide(.singleton) { "real" } }
  var greeting: String { provide { "hello, \(self.label)" } }
}

@Suite("ForgeTesting: overrides installed inside an isolated test", .timeLimit(.minutes(1)))
struct IsolatedOverrideTests {
  @Test("Forge: override(_:with:) in a test serves that test only, until removed or the test ends")
  func forgeOverrideStaysInTheTest() async {
    let container = OwnLabelContainer()
    let firstOverrode = Signal()
    let otherRead = Signal()
    async let first: [String] = withIsolatedContainers(container) {
      container.override(\.label) { "first" }
      firstOverrode.raise()
      let overridden = container.greeting
      while !otherRead.isRaised { await Task.yield() }
      container.removeOverride(for: \.label)
      let removed = container.greeting
      container.override(\.label) { "again" }
      container.resetAll()
      return [overridden, removed, container.greeting]
    }
    async let other: String = withIsolatedContainers(container) {
      while !firstOverrode.isRaised { await Task.yield() }
      defer { otherRead.raise() }
      return container.greeting
    }
    let (firstGreetings, otherGreeting) = await (first, other)
    #expect(firstGreetings == ["hello, first", "hello, real", "hello, real"])
    #expect(otherGreeting == "hello, real")
    // Ended with the test: the container serves its own.
    #expect(container.greeting == "hello, real")
    // Outside any test, override(_:with:) is the container's, as before.
    container.override(\.label) { "wired" }
    withIsolatedContainers(container) { #expect(container.greeting == "hello, wired") }
    #expect(container.greeting == "hello, wired")
  }

  @Test("SwiftPod: overrideProvider in a test serves that test only")
  func podOverrideStaysInTheTest() async {
    let pod = SwiftPod()
    let label = Provider("label") { _ in "real" }
    await withIsolatedContainers(pod) {
      pod.overrideProvider(label) { _ in "mock" }
      #expect(pod.resolve(label) == "mock")
      // A task outside the test.
      #expect(await Task.detached { pod.resolve(label) }.value == "real")
      pod.removeOverrideProvider(label)
      #expect(pod.resolve(label) == "real")
      pod.overrideProvider(label) { _ in "left in place" }
    }
    #expect(pod.resolve(label) == "real")
  }

  @Test("removing an override the test declared serves the real dependency, in that test only")
  func removingDeclaredOverride() async {
    let container = OwnLabelContainer()
    let pod = SwiftPod()
    let label = Provider("label") { _ in "real" }
    let firstRemoved = Signal()
    let otherRead = Signal()
    async let first: [String] = withIsolatedContainers(container, pod) {
      $0.override(\.label, in: container) { "declared" }
      $0.overrideProvider(label, in: pod) { _ in "declared" }
    } operation: {
      let before = [container.label, pod.resolve(label)]
      container.removeOverride(for: \.label)
      pod.removeOverrideProvider(label)
      firstRemoved.raise()
      while !otherRead.isRaised { await Task.yield() }
      let after = [container.label, container.greeting, pod.resolve(label)]
      // Overridden again in the test, then removed again.
      container.override(\.label) { "again" }
      let again = container.label
      container.removeOverride(for: \.label)
      return before + after + [again, container.label]
    }
    async let other: [String] = withIsolatedContainers(container, pod) {
      $0.override(\.label, in: container) { "other's" }
      $0.overrideProvider(label, in: pod) { _ in "other's" }
    } operation: {
      while !firstRemoved.isRaised { await Task.yield() }
      defer { otherRead.raise() }
      return [container.label, pod.resolve(label)]
    }
    let (firstLabels, otherLabels) = await (first, other)
    #expect(firstLabels == ["declared", "declared", "real", "hello, real", "real", "again", "real"])
    #expect(otherLabels == ["other's", "other's"])
  }
}

protocol Salutation: Sendable { var greeting: String { get } }
struct RealSalutation: Salutation { let greeting = "real" }
struct TestSalutation: Salutation { let greeting: String }
struct Introduction: Sendable {
  let salutation: Salutation
  let name: String
}
struct AsyncIntroduction: Sendable { let name: String }

/// What `container` greets with: its `Salutation`, resolved synchronously,
/// and its `TestSalutation`, awaited; "missing" for either it lacks.
func greetings(in container: ForgeContainer) async -> [String] {
  [
    (try? container.resolve() as Salutation)?.greeting ?? "missing",
    (try? await container.resolveAsync() as TestSalutation)?.greeting ?? "missing",
  ]
}

@Suite("ForgeTesting: ForgeInject registrations inside an isolated test", .timeLimit(.minutes(1)))
struct IsolatedRegistrationTests {
  @Test("validate() in a test checks the test's registrations too, those it declared and those it made")
  func validateChecksTestRegistrations() async {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in RealSalutation() as Salutation }
    withIsolatedContainers(container) {
      $0.register(in: container, with: .singleton) { c in
        Introduction(salutation: try c.resolve(), name: try c.resolve())
      }
    } operation: {
      // Introduction, declared by the test, needs a String nobody registered.
      let report = container.validate()
      #expect(!report.isValid)
      #expect("\(report)".contains("Swift.String"), "\(report)")
      container.register { _ in "Ada" }
      #expect(container.validate().isValid, "\(container.validate())")
    }
    await withIsolatedContainers(container) {
      container.register(with: .singleton) { c async throws in AsyncIntroduction(name: try c.resolve()) }
      let report = await container.validateAsync()
      #expect(!report.isValid)
      #expect("\(report)".contains("Swift.String"), "\(report)")
    }
    // The container itself never had them.
    #expect(container.validate().isValid)
    #expect(await container.validateAsync().isValid)
  }

  @Test("registeredTypeNames in a test lists the test's registrations of new types after the container's")
  func registeredTypeNamesListsTestRegistrations() {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in RealSalutation() as Salutation }
    withIsolatedContainers(container) {
      $0.register(in: container, with: .singleton) { _ in Introduction(salutation: RealSalutation(), name: "Ada") }
    } operation: {
      container.register { _ in "Ada" }
      container.register(with: .singleton) { _ in TestSalutation(greeting: "test") as Salutation }
      container.register(with: .singleton) { _ async in AsyncIntroduction(name: "Ada") }
      #expect(
        container.registeredTypeNames == [
          "ForgeTestingTests.Salutation", "ForgeTestingTests.Introduction", "Swift.String",
          "ForgeTestingTests.AsyncIntroduction",
        ])
    }
    // The container itself never had them.
    #expect(container.registeredTypeNames == ["ForgeTestingTests.Salutation"])
  }

  @Test("register(with:builder:) in a test registers for that test only; the container keeps its own")
  func registrationStaysInTheTest() async throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in RealSalutation() as Salutation }
    let firstRegistered = Signal()
    let otherResolved = Signal()
    async let first: [String] = withIsolatedContainers(container) {
      container.register(with: .singleton) { _ in TestSalutation(greeting: "first") as Salutation }
      container.register(with: .singleton) { _ async in TestSalutation(greeting: "first, async") }
      firstRegistered.raise()
      while !otherResolved.isRaised { await Task.yield() }
      return await greetings(in: container)
    }
    async let other: [String] = withIsolatedContainers(container) {
      while !firstRegistered.isRaised { await Task.yield() }
      defer { otherResolved.raise() }
      return await greetings(in: container)
    }
    let (firstGreetings, otherGreetings) = await (first, other)
    #expect(firstGreetings == ["first", "first, async"])
    #expect(otherGreetings == ["real", "missing"])
    #expect((try container.resolve() as Salutation).greeting == "real")
    #expect((try? await container.resolveAsync() as TestSalutation) == nil)
  }

  @Test("main-actor registrations in a test register for that test only; the container keeps its own")
  func mainActorRegistrationsStayInTheTest() async throws {
    let container = ForgeContainer()
    container.register(with: .singleton, onMainActor: { _ in TestSalutation(greeting: "real, main actor") })
    await MainActor.run {
      container.register(with: .singleton, mainActorBuilder: { _ in RealSalutation() as Salutation })
    }
    let firstRegistered = Signal()
    let otherResolved = Signal()
    async let first: [String] = withIsolatedContainers(container) {
      container.register(with: .singleton, onMainActor: { _ in TestSalutation(greeting: "first, main actor") })
      await MainActor.run {
        container.register(with: .singleton, mainActorBuilder: { _ in TestSalutation(greeting: "first") as Salutation })
      }
      firstRegistered.raise()
      while !otherResolved.isRaised { await Task.yield() }
      // Kept at registration, as the container keeps its own.
      let listed = container.resolveAll(conforming: Salutation.self).map(\.greeting)
      return await listed + greetings(in: container)
    }
    async let other: [String] = withIsolatedContainers(container) {
      while !firstRegistered.isRaised { await Task.yield() }
      defer { otherResolved.raise() }
      return await greetings(in: container)
    }
    let (firstGreetings, otherGreetings) = await (first, other)
    #expect(firstGreetings == ["first", "first", "first, main actor"])
    #expect(otherGreetings == ["real", "real, main actor"])
    #expect((try container.resolve() as Salutation).greeting == "real")
    #expect((try await container.resolveAsync() as TestSalutation).greeting == "real, main actor")
  }
}
