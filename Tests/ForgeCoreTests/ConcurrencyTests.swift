import Dispatch
import ForgeCore
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Exactly once, concurrently", .timeLimit(.minutes(1)))
struct ConcurrencyTests {
  @Test("many threads resolving one singleton build it once and share it")
  func singletonBuiltOnce() {
    for _ in 0..<20 {
      let store = SlotStore<String>()
      let counter = Counter()
      let results = LockedValue<[ObjectIdentifier]>([])
      onThreads(16) { _ in
        let thing = try! store.resolve("s", lifetime: .singleton, name: "s") {
          counter.increment()
          usleep(2_000)  // keep the slot "building" while the others arrive
          return Thing()
        }
        results.withValue { $0.append(ObjectIdentifier(thing)) }
      }
      #expect(counter.count == 1)
      #expect(Set(results.current).count == 1)
      #expect(results.current.count == 16)
    }
  }

  @Test("a factory may resolve other dependencies of the same store (re-entrancy)")
  func reentrant() throws {
    let store = SlotStore<String>()
    let outer = try store.resolve("outer", lifetime: .singleton, name: "outer") {
      let inner = try store.resolve("inner", lifetime: .singleton, name: "inner") { Thing("inner") }
      return [inner]
    }
    #expect(outer.first === (try store.resolve("inner", lifetime: .singleton, name: "inner") { Thing() }))
  }

  @Test("a failed build leaves nothing behind and the next resolution tries again")
  func failedBuildRetries() throws {
    let store = SlotStore<String>()
    #expect(throws: Boom.self) {
      _ = try store.resolve("s", lifetime: .singleton, name: "s") { () throws -> Thing in throw Boom() }
    }
    let thing = try store.resolve("s", lifetime: .singleton, name: "s") { Thing("second") }
    #expect(thing.label == "second")
  }

  @Test("threads waiting on a build that fails take over and build it themselves")
  func waitersRetryAfterFailure() {
    let store = SlotStore<String>()
    let attempts = Counter()
    let successes = Counter()
    onThreads(8) { _ in
      let result = try? store.resolve("s", lifetime: .singleton, name: "s") { () throws -> Thing in
        attempts.increment()
        usleep(1_000)
        if attempts.count == 1 { throw Boom() }
        return Thing()
      }
      if result != nil { successes.increment() }
    }
    #expect(attempts.count == 2)
    #expect(successes.count == 7)
  }

  @Test("concurrent resolution, overriding and clearing never corrupt the store")
  func stress() {
    let store = SlotStore<Int>()
    onThreads(8) { thread in
      for round in 0..<500 {
        let key = round % 10
        switch (thread + round) % 5 {
        case 0: store.clearStored { _ in true }
        case 1: store.setOverride(key, name: "\(key)") { Thing("override") }
        case 2: store.removeOverride(key)
        default:
          let thing = try? store.resolve(key, lifetime: .singleton, name: "\(key)") { Thing() }
          precondition(thing != nil)
        }
      }
    }
    #expect(throws: Never.self) { try store.resolve(0, lifetime: .singleton, name: "0") { Thing() } }
  }
}
