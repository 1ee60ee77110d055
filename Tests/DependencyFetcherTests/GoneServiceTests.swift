import DependencyFetcher
import ForgeTestSupport
import Testing

@Suite("DependencyFetcher: a fetcher forgets services that are gone", .timeLimit(.minutes(1)))
struct GoneServiceTests {
  @Test("2,000 short-lived services: their slots and instances go, a live service's instance stays")
  func servicesGo() {
    let fetcher = Fetcher.createDefault()
    let kept = Service { Thing("kept") }
    let first = fetcher.fetch(kept)
    let alive = Counter()
    for index in 0..<2_000 {
      let service = Service { Tracked(index, alive: alive) }
      #expect(fetcher.fetch(service).number == index)
    }
    // A slot goes when the table next fills: at most the table's half.
    #expect(fetcher.engine.slotCount < 64)
    #expect(alive.count < 64)
    #expect(fetcher.engine.replacedTableCount < 8)
    #expect(fetcher.fetch(kept) === first)
  }

  @Test("a service made where a gone one lived never gets the gone one's instance")
  func addressReuse() {
    let fetcher = Fetcher.createDefault()
    var seen: Set<ObjectIdentifier> = []
    var reused = 0
    for index in 0..<2_000 {
      let service = Service { Tracked(index) }
      #expect(fetcher.fetch(service).number == index)
      if !seen.insert(ObjectIdentifier(service)).inserted { reused += 1 }
    }
    // The allocator hands the same addresses out again: the check above ran
    // for services at the address of a gone one.
    // (Not under AddressSanitizer, which never reuses an address soon.)
    #expect(reused > 0 || !allocatorReusesAddresses)
  }

  @Test("an override of a gone service goes with it")
  func overridesGo() {
    var gone: Service<Thing>? = Service { Thing("real") }
    let fetcher = Fetcher.create().addOverride(for: gone!) { Thing("mock") }.done()
    #expect(fetcher.fetch(gone!).label == "mock")
    #expect(fetcher.engine.overrideCount == 1)
    gone = nil
    for index in 0..<100 { _ = fetcher.fetch(Service { Tracked(index) }) }
    #expect(fetcher.engine.overrideCount == 0)
  }
}
