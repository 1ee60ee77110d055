import ForgeCore
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Wait-for graph: no hang across stores and threads", .timeLimit(.minutes(1)))
struct WaitForGraphTests {
  @Test("a cycle across two stores, closed by two threads at once, is an error on both threads")
  func crossStoreCycle() {
    for _ in 0..<5 {
      let first = SlotStore<String>()
      let second = SlotStore<String>()
      let bothBuilding = Counter()
      let errors = LockedValue<[DependencyCycleError]>([])
      @Sendable func a() throws -> Thing {
        try first.resolve("a", lifetime: .singleton, name: "First.a") {
          bothBuilding.increment()
          while bothBuilding.count < 2 { usleep(100) }  // each thread holds its own build
          _ = try b()
          return Thing("a")
        }
      }
      @Sendable func b() throws -> Thing {
        try second.resolve("b", lifetime: .singleton, name: "Second.b") {
          bothBuilding.increment()
          while bothBuilding.count < 2 { usleep(100) }
          _ = try a()
          return Thing("b")
        }
      }
      @Sendable func record(_ body: () throws -> Void) {
        do { try body() } catch let cycle as DependencyCycleError {
          errors.withValue { $0.append(cycle) }
        } catch {}
      }
      let threads = [RealThread { record { _ = try a() } }, RealThread { record { _ = try b() } }]
      for thread in threads { thread.join() }
      #expect(errors.current.count == 2)
      for error in errors.current {
        #expect(error.path.first == error.path.last)
        #expect(Set(error.path) == ["First.a", "Second.b"])
      }
    }
  }

  @Test("a cycle through three stores and three threads is found wherever it closes")
  func threeStores() {
    let stores = (0..<3).map { _ in SlotStore<String>() }
    let building = Counter()
    let failures = Counter()
    @Sendable func resolve(_ index: Int) throws -> Thing {
      try stores[index].resolve("s\(index)", lifetime: .singleton, name: "s\(index)") {
        building.increment()
        while building.count < 3 { usleep(100) }
        _ = try resolve((index + 1) % 3)
        return Thing()
      }
    }
    let threads = (0..<3).map { index in
      RealThread {
        do { _ = try resolve(index) } catch is DependencyCycleError { failures.increment() } catch {}
      }
    }
    for thread in threads { thread.join() }
    #expect(failures.count == 3)
  }

  @Test("waiting for another thread's build that closes no cycle still waits and shares its instance")
  func plainWait() {
    let store = SlotStore<String>()
    let started = Signal()
    let results = IdentitySet()
    let builder = RealThread {
      let thing = try! store.resolve("slow", lifetime: .singleton, name: "slow") {
        started.raise()
        usleep(50_000)
        return Thing()
      }
      results.insert(thing)
    }
    started.wait()
    let waiter = RealThread {
      results.insert(try! store.resolve("slow", lifetime: .singleton, name: "slow") { Thing() })
    }
    builder.join()
    waiter.join()
    #expect(results.count == 1)
  }
}

@Suite("Hazard records", .timeLimit(.minutes(1)))
struct HazardRecordTests {
  @Test("a thread's record goes when the thread ends: memory follows live threads, not every thread that resolved")
  func recordsLeaveWithTheirThread() {
    let store = SlotStore<String>()
    _ = try! store.resolve("s", lifetime: .singleton, name: "s") { Thing() }
    let before = ThreadRecords.count
    for _ in 0..<300 {
      RealThread { _ = try! store.resolve("s", lifetime: .singleton, name: "s") { Thing() } }.join()
    }
    // Other tests run threads at the same time: allow for them, not for 300.
    #expect(ThreadRecords.count < before + 50)
  }
}
