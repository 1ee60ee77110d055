import ForgeTestSupport
import SwiftPod
import Testing

@Suite("SwiftPod: a pod forgets providers that are gone", .timeLimit(.minutes(1)))
struct GoneProviderTests {
  @Test("10,000 short-lived transient providers leave a handful of slots, not 10,000")
  func transientProvidersGo() {
    let pod = SwiftPod()
    let kept = Provider { _ in Thing("kept") }
    let first = pod.resolve(kept)
    for index in 0..<10_000 {
      let provider = Provider(scope: AlwaysCreateNewScope()) { _ in Thing("\(index)") }
      #expect(pod.resolve(provider).label == "\(index)")
    }
    // A slot goes when the table next fills: at most the table's half.
    #expect(pod.engine.slotCount < 64)
    // Their table entries are emptied and written again: the table is
    // rarely copied (each copy is kept until the pod goes).
    #expect(pod.engine.replacedTableCount < 8)
    #expect(pod.resolve(kept) === first)
  }

  @Test("a gone provider's singleton is released with its slot, unless shutdown must stop it")
  func singletonsOfGoneProviders() async {
    let pod = SwiftPod()
    let log = Guarded<[String]>([])
    let alive = Counter()
    do {
      let stoppable = Provider("stoppable") { _ in StoppablePart("stoppable", log: log) }
      _ = pod.resolve(stoppable)
    }
    for index in 0..<2_000 {
      let provider = Provider { _ in Tracked(index, alive: alive) }
      #expect(pod.resolve(provider).number == index)
    }
    #expect(pod.engine.slotCount < 64)
    #expect(alive.count < 64)
    let report = await pod.shutdown()
    #expect(report.stopped == ["stoppable"])
    #expect(log.withLock { $0 } == ["stoppable"])
  }

  @Test("a provider made where a gone one lived is a dependency of its own: it never gets the gone one's instance")
  func addressReuse() {
    let pod = SwiftPod()
    var seen: [ObjectIdentifier: Int] = [:]
    var reused = 0
    for index in 0..<2_000 {
      let provider = Provider { _ in Tracked(index) }
      let address = ObjectIdentifier(provider)
      #expect(pod.resolve(provider).number == index)
      if seen.updateValue(index, forKey: address) != nil { reused += 1 }
    }
    // The allocator hands the same addresses out again: the check above ran
    // for providers at the address of a gone one.
    // (Not under AddressSanitizer, which never reuses an address soon.)
    #expect(reused > 0 || !allocatorReusesAddresses)
  }

  @Test("an override of a gone provider goes with it")
  func overridesGo() {
    let pod = SwiftPod()
    let kept = Provider { _ in Thing("real") }
    do {
      let gone = Provider { _ in Thing("gone") }
      pod.overrideProvider(gone) { _ in Thing("mock") }
      #expect(pod.resolve(gone).label == "mock")
    }
    #expect(pod.engine.overrideCount == 1)
    for _ in 0..<100 { _ = pod.resolve(Provider(scope: AlwaysCreateNewScope()) { _ in Thing() }) }
    #expect(pod.engine.overrideCount == 0)
    #expect(pod.resolve(kept).label == "real")
  }

  @Test("threads resolving short-lived and long-lived providers of one pod: each long-lived one built once")
  func concurrentChurn() {
    let pod = SwiftPod()
    let builds = Counter()
    let shared = (0..<8).map { index in
      Provider("shared \(index)") { _ in
        builds.increment()
        return Thing("shared \(index)")
      }
    }
    let firsts = shared.map { pod.resolve($0) }
    let wrong = Counter()
    onThreads(4) { thread in
      for round in 0..<2_000 {
        let scope: any ProviderScope = round.isMultiple(of: 2) ? AlwaysCreateNewScope() : SingletonScope()
        let shortLived = Provider(scope: scope) { pod in
          Thing("short \(pod.resolve(shared[round % 8]).label)")
        }
        if pod.resolve(shortLived).label != "short shared \(round % 8)" { wrong.increment() }
        let index = (round + thread) % 8
        if pod.resolve(shared[index]) !== firsts[index] { wrong.increment() }
      }
    }
    #expect(wrong.count == 0)
    #expect(builds.count == 8)
    #expect(pod.engine.slotCount < 8 + 64)
    #expect(pod.engine.replacedTableCount < 8)
  }
}
