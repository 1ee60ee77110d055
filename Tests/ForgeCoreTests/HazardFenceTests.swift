import ForgeCore
import ForgeTestSupport
import Testing

// A reader publishes its hazard pointer with a plain store on x86_64 Linux
// and the reclaimer fences every thread instead: with `membarrier`, or, where
// the kernel refuses it, by taking write access away from a page. These
// tests run the reads and frees of the stress suite under each.
@Suite("Hazard pointers: the reclaimer's fence", .timeLimit(.minutes(2)))
struct HazardFenceTests {
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
      let (wrong, clears, kept) = readWhileClearing(seconds: min(stressSeconds, 2))
      precondition(wrong == 0, "\(wrong) reads copied out a freed instance")
      precondition(clears > 0 && Tracked.made.count > 0)
      precondition(kept == 0, "\(kept) instances still kept: a retired box was not freed")
    }
  }
}
