import DependencyFetcher
import ForgeTestSupport
import Testing

// Issue 11: a service's closure can fetch other services from the fetcher
// that is fetching it, and services referring to each other need no type
// annotations.

protocol ClockService: Sendable { var now: Int { get } }
final class SystemClockService: ClockService {
  var now: Int { 1_000 }
}
final class FixedClockService: ClockService {
  let now: Int
  init(now: Int) { self.now = now }
}
final class Journal: Sendable {
  let clock: ClockService
  let thing: Thing
  init(clock: ClockService, thing: Thing) {
    self.clock = clock
    self.thing = thing
  }
}
final class Report: Sendable {
  let journal: Journal
  init(journal: Journal) { self.journal = journal }
}

/// Counts builds of `countedJournal`, which only `exactlyOnce` fetches.
let countedJournalBuilds = Counter()

extension Service where T == ClockService {
  static let clock = Service(SystemClockService())
}

extension Service where T == Journal {
  static let journal = Service { fetcher in
    Journal(clock: fetcher.fetch(.clock), thing: fetcher.fetch(.thing))
  }
  static let countedJournal = Service { fetcher in
    countedJournalBuilds.increment()
    return Journal(clock: fetcher.fetch(.clock), thing: fetcher.fetch(.thing))
  }
}

extension Service where T == Report {
  static let report = Service("report") { fetcher in Report(journal: fetcher.fetch(.journal)) }
}

@Suite("Services made from the fetcher that fetches them")
struct FetcherServiceTests {
  @Test("a service's closure fetches from the fetcher fetching it, so that fetcher's overrides apply")
  func overridesReachDependents() {
    let plain = Fetcher.createDefault()
    #expect(plain.fetch(.report).journal.clock.now == 1_000)

    let mocked = Fetcher.create()
      .addOverride(for: Service.clock, instance: FixedClockService(now: 5))
      .done()
    let report = mocked.fetch(.report)
    #expect(report.journal.clock.now == 5)
    #expect(report.journal === mocked.fetch(.journal))
    #expect(report.journal.thing === mocked.fetch(.thing))
  }

  @Test("an override may itself fetch from the fetcher being built")
  func overrideWithFetcher() {
    let fetcher = Fetcher.create()
      .addOverride(for: Service.clock, instance: FixedClockService(now: 7))
      .addOverride(for: Service.journal) { fetcher in
        Journal(clock: fetcher.fetch(.clock), thing: Thing("override"))
      }
      .done()
    let journal = fetcher.fetch(.journal)
    #expect(journal.clock.now == 7)
    #expect(journal.thing.label == "override")
  }

  @Test("made once per fetcher however many threads fetch at once", .timeLimit(.minutes(1)))
  func exactlyOnce() async {
    let fetcher = Fetcher.createDefault()
    let journals = await withTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<32 { group.addTask { ObjectIdentifier(fetcher.fetch(.countedJournal)) } }
      return await group.reduce(into: Set()) { $0.insert($1) }
    }
    #expect(journals.count == 1)
    #expect(countedJournalBuilds.count == 1)
  }

  @Test("makeService of a fetcher-taking service makes it with a fetcher of its own")
  func makeServiceStandalone() {
    #expect(Service<Report>.report.makeService().journal.clock.now == 1_000)
    #expect(Service<Report>.report.name == "report")
  }
}
