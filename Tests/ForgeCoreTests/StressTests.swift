import ForgeCore
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How long each stress scenario runs: one second by default, in CI too;
/// `FORGE_STRESS_SECONDS=120 swift test --filter Stress` for minutes.
let stressSeconds: Double = {
  guard let raw = getenv("FORGE_STRESS_SECONDS"), let seconds = Double(String(cString: raw)), seconds > 0 else {
    return 1
  }
  return seconds
}()

/// A monotonic clock reading in seconds.
func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// An instance stamped with a number: an override's round, or the clears
/// begun when its factory started.
final class Stamped: Sendable {
  let stamp: Int
  init(_ stamp: Int) { self.stamp = stamp }
}

/// Counts its instances made and gone, so that a test can tell that every
/// box a clear retired was freed.
final class Tracked: Sendable {
  static let made = Counter()
  static let gone = Counter()
  init() { Self.made.increment() }
  deinit { Self.gone.increment() }
}

/// Three threads read two kept instances while a fourth clears them, for
/// `seconds`: each reader must copy out an instance that is still alive
/// (`wrong` counts the reads that did not). `kept` is how many instances
/// were made and not yet released once the readers are gone and one more
/// clear has run, with the store still alive (its end would free every
/// retired box regardless).
func readWhileClearing(seconds: Double) -> (wrong: Int, clears: Int, kept: Int) {
  let store = SlotStore<Int>()
  let done = Signal()
  let deadline = now() + seconds
  let clears = Counter()
  let clearer = RealThread {
    while now() < deadline {
      store.clearStored { _ in true }
      clears.increment()
    }
    done.raise()
  }
  let wrong = Counter()
  onThreads(3) { thread in
    while !done.isRaised {
      let value = try! store.resolve(thread % 2, lifetime: .singleton, name: "k") { (Stamped(7), Tracked()) }
      if value.0.stamp != 7 { wrong.increment() }
    }
  }
  clearer.join()
  // No reader is left: this clear's reclaim frees every box retired.
  store.clearStored { _ in true }
  return withExtendedLifetime(store) { (wrong.count, clears.count, Tracked.made.count - Tracked.gone.count) }
}

/// Serialized: each scenario blocks the thread of the cooperative pool it
/// runs on for its whole length (it joins real threads), and with two or
/// more at once on a two-core machine, the pool would have no thread left
/// for the other tests, whose time limits would then run out while they
/// wait to start (seen with `FORGE_STRESS_SECONDS=70`).
@Suite("Stress: many threads on the same stores", .serialized, .timeLimit(.minutes(10)))
struct StressTests {
  @Test("exactly once: fresh stores, many keys, eight threads resolving them at once")
  func exactlyOnce() {
    let deadline = now() + stressSeconds
    var rounds = 0
    while now() < deadline || rounds == 0 {
      rounds += 1
      let store = SlotStore<Int>()
      let builds = (0..<16).map { _ in Counter() }
      let seen = (0..<16).map { _ in IdentitySet() }
      onThreads(8) { thread in
        for step in 0..<64 {
          let key = (thread * 7 + step) % 16
          let thing = try! store.resolve(key, lifetime: key.isMultiple(of: 2) ? .singleton : .cached, name: "k\(key)") {
            builds[key].increment()
            return Thing()
          }
          seen[key].insert(thing)
        }
      }
      for key in 0..<16 {
        #expect(builds[key].count == 1)
        #expect(seen[key].count == 1)
      }
    }
  }

  @Test("no lost override: a resolution that starts after setOverride returns sees it (or a later one)")
  func noLostOverride() {
    let store = SlotStore<Int>()
    let installed = LockedValue(0)
    let done = Signal()
    let violations = Counter()
    let reads = Counter()
    let deadline = now() + stressSeconds
    let writer = RealThread {
      var round = 0
      while now() < deadline {
        round += 1
        let stamp = round
        store.setOverride(0, name: "k", lifetime: round.isMultiple(of: 3) ? .singleton : .transient) { Stamped(stamp) }
        installed.current = round
        if round.isMultiple(of: 5) { store.clearStored { _ in true } }
      }
      done.raise()
    }
    onThreads(4) { _ in
      while !done.isRaised {
        let before = installed.current
        let value = try! store.resolve(0, lifetime: .singleton, name: "k") { Stamped(0) }
        reads.increment()
        if before > 0, value.stamp < before { violations.increment() }
      }
    }
    writer.join()
    #expect(violations.count == 0)
    #expect(reads.count > 0)
  }

  @Test("a kept instance copied out while clears free it is retained before its reader lets go of its box")
  func readersRetainBeforeLettingGo() {
    // A reader that released its hazard pointer before retaining what it
    // copied out of the box could retain an instance a clear had just freed
    // (a crash, or an instance served after its deinit ran).
    let (wrong, clears, kept) = readWhileClearing(seconds: stressSeconds)
    #expect(wrong == 0)
    #expect(clears > 0)
    #expect(kept == 0, "every box the clears retired is freed once no reader holds it")
  }

  @Test("a clear is never lost to a build in flight: what a resolution after it returns was built after it began")
  func clearsBeatBuilds() {
    let store = SlotStore<Int>()
    let begun = LockedValue(0)
    let completed = LockedValue(0)
    let done = Signal()
    let violations = Counter()
    let deadline = now() + stressSeconds
    let clearer = RealThread {
      while now() < deadline {
        begun.withValue { $0 += 1 }
        store.clearStored { _ in true }
        completed.current = begun.current
        usleep(50)
      }
      done.raise()
    }
    onThreads(4) { thread in
      while !done.isRaised {
        let key = thread % 2
        let before = completed.current
        let value = try! store.resolve(key, lifetime: .cached, name: "k\(key)") { () -> Stamped in
          let stamp = begun.current
          usleep(20)  // a build long enough for clears to land during it
          return Stamped(stamp)
        }
        if value.stamp < before { violations.increment() }
      }
    }
    clearer.join()
    #expect(violations.count == 0)
  }

  @Test("cross-store cycles closed by pairs of threads, again and again, never hang")
  func crossStoreCycles() {
    let deadline = now() + stressSeconds
    var rounds = 0
    while now() < deadline || rounds == 0 {
      rounds += 1
      let first = SlotStore<String>()
      let second = SlotStore<String>()
      let barrier = Barrier(2)
      let cycles = Counter()
      @Sendable func a() throws -> Thing {
        try first.resolve("a", lifetime: .singleton, name: "a") {
          barrier.arrive(seconds: 0.05)
          _ = try b()
          return Thing()
        }
      }
      @Sendable func b() throws -> Thing {
        try second.resolve("b", lifetime: .singleton, name: "b") {
          barrier.arrive(seconds: 0.05)
          _ = try a()
          return Thing()
        }
      }
      let threads = [
        RealThread {
          do { _ = try a() } catch is DependencyCycleError { cycles.increment() } catch {}
        },
        RealThread {
          do { _ = try b() } catch is DependencyCycleError { cycles.increment() } catch {}
        },
      ]
      for thread in threads { thread.join() }
      #expect(cycles.count == 2)
    }
  }

  @Test("resolving, overriding, clearing and scoping the same stores from tasks and threads never crashes or corrupts")
  func everythingAtOnce() async {
    let stores = (0..<2).map { _ in SlotStore<Int>() }
    let deadline = now() + stressSeconds
    let threads = (0..<3).map { index in
      RealThread {
        var round = 0
        while now() < deadline {
          round += 1
          let store = stores[round % 2]
          let key = (index + round) % 8
          switch (index + round) % 6 {
          case 0: store.clearStored { _ in true }
          case 1: store.setOverride(key, name: "o\(key)", lifetime: .singleton) { Thing("override") }
          case 2: store.removeOverride(key)
          default:
            _ = try! store.resolve(key, lifetime: .singleton, name: "k\(key)") {
              // Reads across stores, never closing a cycle: lower keys only.
              if key > 0 {
                _ = try stores[(round + 1) % 2].resolve(key - 1, lifetime: .cached, name: "k\(key - 1)") { Thing() }
              }
              return Thing()
            }
          }
        }
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<4 {
        group.addTask {
          while now() < deadline {
            let store = stores[task % 2]
            let entry = store.makeOverride(task, name: "scoped \(task)") { Thing("scoped") }
            let scope = OverrideScope(parent: OverrideScope.current, entries: [entry.slot.target: entry])
            OverrideScope.with(scope) {
              let thing = try! store.resolve(task, lifetime: .singleton, name: "k\(task)") { Thing() }
              precondition(thing.label == "scoped")
              _ = try! store.resolve(7, lifetime: .cached, name: "k7") { Thing() }
            }
          }
        }
      }
    }
    for thread in threads { thread.join() }
    for store in stores {
      store.removeAllOverrides()
      let thing = try? store.resolve(0, lifetime: .singleton, name: "k0") { Thing("fresh") }
      #expect(thing?.label == "fresh" || thing?.label == "thing")
    }
  }
}
