import DependencyFetcher
import Forge
import ForgeInject
import ForgeTestSupport
import ForgeTesting
import Foundation
import SwiftPod
import Testing

/// Appends what it is told; one per container, unless a test isolates it.
final class Journal: Sendable {
  let entries = Guarded<[Int]>([])
  func append(_ entry: Int) { entries.withLock { $0.append(entry) } }
  var all: [Int] { entries.withLock { $0 } }
}

final class TestingContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = TestingContainer()
  var journal: Journal { provide(.singleton) { Journal() } }
  var label: String { provide(.singleton) { "real" } }
  var greeting: [String] { provide(.cached) { ["hello, \(self.label)"] } }
}

let sharedPod = SwiftPod()
let journalProvider = Provider("journal") { _ in Journal() }
let sharedFetcher = Fetcher.createDefault()
extension Service where T == Journal {
  static let journal = Service("journal") { Journal() }
}
let sharedInjectContainer: ForgeContainer = {
  let container = ForgeContainer()
  container.register(with: .singleton) { _ in Journal() }
  return container
}()

@Suite("ForgeTesting: the isolated trait", .timeLimit(.minutes(1)))
struct IsolatedContainersTests {
  @Test(
    "40 tests in parallel, each overriding the same dependency, each see their own singletons",
    .isolated(TestingContainer.shared, sharedPod, sharedFetcher, sharedInjectContainer),
    arguments: 0..<40
  )
  func parallel(case number: Int) async throws {
    let journal = TestingContainer.shared.journal
    journal.append(number)
    sharedPod.resolve(journalProvider).append(number)
    sharedFetcher.fetch(.journal).append(number)
    (try sharedInjectContainer.resolve() as Journal).append(number)
    // Let the other cases run in between.
    try await Task.sleep(for: .milliseconds(5))
    TestingContainer.shared.withOverrides {
      $0.override(\.label) { "case \(number)" }
    } run: {
      #expect(TestingContainer.shared.greeting == ["hello, case \(number)"])
    }
    #expect(TestingContainer.shared.journal === journal)
    #expect(journal.all == [number])
    #expect(sharedPod.resolve(journalProvider).all == [number])
    #expect(sharedFetcher.fetch(.journal).all == [number])
    #expect((try sharedInjectContainer.resolve() as Journal).all == [number])
    #expect(TestingContainer.shared.greeting == ["hello, real"])
  }

  @Test(
    "the trait's own overrides apply inside the test",
    .isolated(TestingContainer.shared) { $0.override(\.label) { "mock" } })
  func traitOverrides() {
    #expect(TestingContainer.shared.greeting == ["hello, mock"])
  }

  @Test("what a container kept before is not served inside, and is still its own afterwards")
  func keptBefore() {
    let container = TestingContainer()
    let before = container.journal
    withIsolatedContainers(container) {
      #expect(container.journal !== before)
      #expect(container.journal === container.journal)
    }
    #expect(container.journal === before)
  }

  @Test("the function form isolates async code too, for XCTest")
  func asyncFunction() async throws {
    let pod = SwiftPod()
    let outside = pod.resolve(journalProvider)
    let inside = try await withIsolatedContainers(pod) {
      try await Task.sleep(for: .milliseconds(1))
      return pod.resolve(journalProvider)
    }
    #expect(inside !== outside)
    #expect(pod.resolve(journalProvider) === outside)
  }
}

@Suite("ForgeTesting: a suite-wide trait", .isolated(TestingContainer.shared), .serialized)
struct SuiteIsolationTests {
  static let seen = Guarded<[ObjectIdentifier]>([])

  @Test("each test gets its own", arguments: 0..<3)
  func own(_ number: Int) {
    let journal = TestingContainer.shared.journal
    #expect(journal.all.isEmpty)
    journal.append(number)
    Self.seen.withLock { seen in
      #expect(!seen.contains(ObjectIdentifier(journal)))
      seen.append(ObjectIdentifier(journal))
    }
  }
}
