import ForgeCore
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("A clear beats a build in flight", .timeLimit(.minutes(1)))
struct ResetDuringBuildTests {
  /// Starts a build of `key` on another thread, clears while it runs, and
  /// returns what that build produced and what a resolution after it gets.
  func clearDuringBuild(lifetime: Lifetime, clear: @escaping (SlotStore<String>) -> Void) -> (
    inFlight: Thing, after: Thing
  ) {
    let store = SlotStore<String>()
    let started = Signal()
    let proceed = Signal()
    let inFlight = LockedValue<Thing?>(nil)
    let builder = RealThread {
      let thing = try! store.resolve("k", lifetime: lifetime, name: "k") {
        started.raise()
        proceed.wait()
        return Thing("old state")
      }
      inFlight.current = thing
    }
    started.wait()
    clear(store)
    proceed.raise()
    builder.join()
    let after = try! store.resolve("k", lifetime: lifetime, name: "k") { Thing("new state") }
    return (inFlight.current!, after)
  }

  @Test("clearing every lifetime while the build runs: its instance is handed over but not kept")
  func clearAll() {
    let (inFlight, after) = clearDuringBuild(lifetime: .singleton) { $0.clearStored { _ in true } }
    #expect(inFlight.label == "old state")
    #expect(after.label == "new state")
  }

  @Test("clearing the build's lifetime (a reset of cached instances) while it runs")
  func clearCached() {
    let (_, after) = clearDuringBuild(lifetime: .cached) { $0.clearStored { $0 == .cached } }
    #expect(after.label == "new state")
  }

  @Test("clearing another lifetime leaves the build's instance kept")
  func clearOther() {
    let (inFlight, after) = clearDuringBuild(lifetime: .singleton) { $0.clearStored { $0 == .cached } }
    #expect(after === inFlight)
  }

  @Test("clearing by key while the build runs")
  func clearByKey() {
    let (_, after) = clearDuringBuild(lifetime: .singleton) { $0.clearStoredForKeys(where: { key, _ in key == "k" }) }
    #expect(after.label == "new state")
  }
}
