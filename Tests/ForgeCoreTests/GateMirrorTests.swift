import ForgeCore
import ForgeTestSupport
import Testing

// A hit reads the thread's own flag and the scope gate in one load: the
// gate's changes are mirrored into every live thread's state. These tests
// run in processes of their own, since other tests raise the gate.
@Suite("The scope gate's mirror in each thread's state", .timeLimit(.minutes(1)))
struct GateMirrorTests {
  @Test(
    "raising the gate sets every live thread's mirror, a thread made meanwhile starts with it set, lowering clears all")
  func mirrorsFollowTheGate() async {
    await #expect(processExitsWith: .success) {
      /// A real thread that makes its state, hands its address over and
      /// lives until `end` is raised.
      func parkedState(until end: Signal) -> (UnsafeMutablePointer<ThreadFastState>, RealThread) {
        let address = LockedValue<UInt>(0)
        let made = Signal()
        let thread = RealThread {
          address.withValue { $0 = UInt(bitPattern: ResolutionContext.currentFast) }
          made.raise()
          _ = end.wait()
        }
        _ = made.wait()
        return (UnsafeMutablePointer(bitPattern: address.current)!, thread)
      }
      let end = Signal()
      let own = ResolutionContext.currentFast
      let (early, earlyThread) = parkedState(until: end)
      precondition(!early.pointee.scopeGateMirror && !own.pointee.scopeGateMirror)

      ThreadRecords.moveScopeGate(by: 1)  // a scope starts
      precondition(early.pointee.scopeGateMirror && own.pointee.scopeGateMirror)
      let (late, lateThread) = parkedState(until: end)
      precondition(late.pointee.scopeGateMirror, "a thread made while the gate is raised starts without its mirror")

      // Work bound to some task adds its weight; the scope's end leaves the
      // gate raised by that work alone, and its end lowers it.
      ThreadRecords.moveScopeGate(by: Gates.taskBoundWeight)
      ThreadRecords.moveScopeGate(by: -1)
      precondition(early.pointee.scopeGateMirror && late.pointee.scopeGateMirror)
      ThreadRecords.moveScopeGate(by: -Gates.taskBoundWeight)
      for state in [early, late, own] { precondition(!state.pointee.scopeGateMirror, "a mirror outlived the gate") }

      end.raise()
      earlyThread.join()
      lateThread.join()
    }
  }

  @Test("a hit misses while a scope raises the gate, and not while only another task's bound work does")
  func hitsFollowTheMirror() async {
    await #expect(processExitsWith: .success) {
      let store = SlotStore<String>()
      let thing = try store.resolve("k", lifetime: .singleton, name: "k") { Thing("k") }
      let bits = "k".identityBits!
      precondition(store.published(bits: bits, as: Thing.self) === thing)
      ThreadRecords.moveScopeGate(by: 1)
      precondition(store.published(bits: bits, as: Thing.self) == nil, "a hit ignored a live scope")
      ThreadRecords.moveScopeGate(by: Gates.taskBoundWeight - 1)
      precondition(store.published(bits: bits, as: Thing.self) === thing, "another task's work held the hit")
      ThreadRecords.moveScopeGate(by: -Gates.taskBoundWeight)
      precondition(store.published(bits: bits, as: Thing.self) === thing)
    }
  }
}
