import ForgeCore
import ForgeTestSupport
import Testing

// A hit reads one word that is the published table while nothing holds the
// store on its general path, and nil otherwise (and, for object keys, the
// store's serial or a number no store has). These tests hold that word to
// the override count and the table it stands for.
@Suite("The fast path's words", .timeLimit(.minutes(1)))
struct FastPathTests {
  @Test("they follow overrides, observers and new tables, and a hit serves what they say")
  func followChanges() throws {
    let store = SlotStore<String>()
    #expect(store.fastPathAgrees)
    #expect(!store.fastPathIsOpen, "no table is published yet")
    let thing = try store.resolve("thing", lifetime: .singleton, name: "thing") { Thing("real") }
    #expect(store.fastPathAgrees && store.fastPathIsOpen)

    store.setOverride("thing", name: "thing") { Thing("mock") }
    #expect(store.fastPathAgrees && !store.fastPathIsOpen)
    #expect(try store.resolve("thing", lifetime: .singleton, name: "thing") { Thing("real") }.label == "mock")
    // New slots while the override is installed: tables are published and
    // copied, and the fast path stays shut.
    for index in 0..<40 {
      _ = try store.resolve("other \(index)", lifetime: .singleton, name: "other") { Thing("other") }
    }
    #expect(store.fastPathAgrees && !store.fastPathIsOpen)

    store.removeOverride("thing")
    #expect(store.fastPathAgrees && store.fastPathIsOpen)
    #expect(try store.resolve("thing", lifetime: .singleton, name: "thing") { Thing("again") } === thing)

    let token = store.addObserver(SilentObserver())
    #expect(store.fastPathAgrees && !store.fastPathIsOpen)
    store.removeObserver(token)
    #expect(store.fastPathAgrees && store.fastPathIsOpen)
  }

  @Test("threads that override, observe and add slots at once leave them right, and every override is served")
  func concurrentChanges() throws {
    let store = SlotStore<String>()
    _ = try store.resolve("shared", lifetime: .singleton, name: "shared") { Thing("real") }
    let wrongReads = Counter()
    onThreads(4) { thread in
      for round in 0..<2_000 {
        let key = "key \(thread)"
        let mock = Thing("mock \(thread) \(round)")
        store.setOverride(key, name: key) { mock }
        // Once the override is installed, every read of its key serves it.
        if (try? store.resolve(key, lifetime: .singleton, name: .text(key)) { Thing("real") }) !== mock {
          wrongReads.increment()
        }
        // Slots made meanwhile publish new tables.
        _ = try? store.resolve("\(key) \(round)", lifetime: .singleton, name: .text(key)) { Thing("new") }
        let token = store.addObserver(SilentObserver())
        store.removeOverride(key)
        store.removeObserver(token)
      }
    }
    #expect(wrongReads.count == 0)
    #expect(store.fastPathAgrees && store.fastPathIsOpen)
    #expect(try store.resolve("shared", lifetime: .singleton, name: "shared") { Thing("again") }.label == "real")
  }

  @Test("a thread's one flag lets a hit read lock-free only where nothing records or captures")
  func threadFlag() {
    // What the read path's one test (`ResolutionContext.fastReader`) says at
    // each point, in order, on a thread of its own.
    let seen = LockedValue<[String]>([])
    @Sendable func note(_ point: String) {
      seen.withValue { $0.append("\(point): \(ResolutionContext.fastReader != nil)") }
    }
    let thread = RealThread {
      note("no state yet")
      let state = ResolutionContext.currentFast
      note("state made")
      let store = SlotStore<String>()
      // Built once first, so that its dependencies are recorded and its
      // later builds record nothing.
      _ = try! store.resolve("transient", lifetime: .transient, name: "transient") { Thing() }
      _ = try! store.resolve("singleton", lifetime: .singleton, name: "singleton") { () -> Thing in
        note("in a first build, which records")
        _ = try! store.resolve("transient", lifetime: .transient, name: "transient") { () -> Thing in
          note("in a build that records nothing, inside it")
          return Thing()
        }
        note("back in the recording build")
        return Thing()
      }
      note("after the builds")
      state.pointee.isCapturing = true
      note("capturing")
      _ = try! store.resolve("transient", lifetime: .transient, name: "transient") { () -> Thing in
        note("in a build that records nothing, while capturing")
        return Thing()
      }
      state.pointee.isCapturing = false
      note("capture over")
    }
    thread.join()
    #expect(
      seen.current == [
        "no state yet: false", "state made: true", "in a first build, which records: false",
        "in a build that records nothing, inside it: true", "back in the recording build: false",
        "after the builds: true", "capturing: false", "in a build that records nothing, while capturing: false",
        "capture over: true",
      ])
  }

  @Test("the serial a shut store's hits compare with matches no key's cache, in any state of it")
  func shutSerialMatchesNothing() {
    // A key's cache holds 0 when empty and `beingCached` while a slot's
    // words are written: were `none` either, a hit of an overridden store
    // would take an empty or half-written cache for its own.
    #expect(KeySerial.none != 0)
    #expect(KeySerial.none != UInt(bitPattern: KeyLife.beingCached))
    let key = TestKeyObject()
    #expect(key.keyLife.cachedSlot(inStore: KeySerial.none) == nil)
  }

  @Test("a refresh that read the count before an override came writes again, and shuts the fast path")
  func lateRefresh() async {
    // In a process of its own: the hook is process-wide.
    await #expect(processExitsWith: .success) {
      let store = SlotStore<String>()
      _ = try store.resolve("thing", lifetime: .singleton, name: "thing") { Thing("real") }
      let token = store.addObserver(SilentObserver())
      let paused = Signal()
      let resume = Signal()
      let armed = LockedValue(true)
      FastPathTestHook.set {
        let first = armed.withValue { armed in
          defer { armed = false }
          return armed
        }
        guard first else { return }
        paused.raise()
        resume.wait()
      }
      // Its refresh reads a count of 0 and the table, then waits.
      let late = RealThread { store.removeObserver(token) }
      precondition(paused.wait(), "the refresh never ran")
      store.setOverride("thing", name: "thing") { Thing("mock") }
      resume.raise()
      late.join()
      precondition(store.fastPathAgrees && !store.fastPathIsOpen, "a late refresh opened the fast path")
      let read = try store.resolve("thing", lifetime: .singleton, name: "thing") { Thing("real") }
      precondition(read.label == "mock", "the override was not served")
    }
  }
}

private struct SilentObserver: ResolutionObserver {
  func resolution(_ event: ResolutionEvent) {}
}
