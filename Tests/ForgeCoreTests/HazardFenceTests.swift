import ForgeCore
import ForgeTestSupport
import Testing

// A reader publishes its hazard pointer with a plain store on x86_64 Linux
// and the reclaimer fences every thread instead: with `membarrier`, or, where
// the kernel refuses it, by taking write access away from a page. These
// tests run the reads and frees of the stress suite under each.
@Suite("Hazard pointers: the reclaimer's fence", .timeLimit(.minutes(2)))
struct HazardFenceTests {
  /// Counts its instances made and gone, so that a test can tell that
  /// every box a clear retired was freed.
  final class Tracked: Sendable {
    static let made = Counter()
    static let gone = Counter()
    init() { Self.made.increment() }
    deinit { Self.gone.increment() }
  }

  /// Three threads read two kept instances while a fourth clears them, for
  /// `seconds`: each reader must copy out an instance that is still alive.
  /// `kept` is how many instances were made and not yet released once the
  /// readers are gone and one more clear has run, with the store still
  /// alive (its end would free every retired box regardless).
  static func readWhileClearing(seconds: Double) -> (wrong: Int, clears: Int, kept: Int) {
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

  @Test("the process's fence is the platform's: membarrier or a page on x86_64 Linux, the readers' elsewhere")
  func platformFence() {
    #if os(Linux) && arch(x86_64)
      #expect([.membarrier, .pageProtection].contains(HazardFences.kind))
    #else
      #expect(HazardFences.kind == .readers)
    #endif
    #expect(HazardFences.fenceEveryThread())
  }

  @Test("with a page's protection as the fence, readers never copy out a freed instance")
  func pageProtectionFence() async {
    // In a process of its own: the fence is chosen once per process.
    await #expect(processExitsWith: .success) {
      #if os(Linux) && arch(x86_64)
        precondition(HazardFences.usePageProtectionForTesting(), "no page to protect")
        precondition(HazardFences.kind == .pageProtection)
      #else
        precondition(!HazardFences.usePageProtectionForTesting())
      #endif
      let (wrong, clears, kept) = HazardFenceTests.readWhileClearing(seconds: min(stressSeconds, 2))
      precondition(wrong == 0, "\(wrong) reads copied out a freed instance")
      precondition(clears > 0 && Tracked.made.count > 0)
      precondition(kept == 0, "\(kept) instances still kept: a retired box was not freed")
    }
  }
}
