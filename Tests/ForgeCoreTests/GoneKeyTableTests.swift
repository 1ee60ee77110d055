import ForgeCore
import ForgeTestSupport
import Testing

/// A key object of the tests' own, as a SwiftPod provider is one.
final class TestKeyObject: KeyObject {
  let keySerial = KeySerial.next()
  let keyLife = KeyLife.make()
  deinit { keyLife.end() }
}

@Suite("Slot tables of keys that go", .timeLimit(.minutes(1)))
struct GoneKeyTableTests {
  @Test("lock-free reads find every live key while gone keys' entries are removed, emptied and taken again")
  func liveKeysStayFound() async {
    // In a process of its own: a parallel test's scope would send reads to
    // the lock, and this checks the lock-free read itself.
    await #expect(processExitsWith: .success) {
      let store = SlotStore<IdentityKey>()
      var live: [(key: TestKeyObject, instance: Thing)] = []
      var generator = SplitMix(seed: 7)
      for round in 0..<5_000 {
        let key = TestKeyObject()
        let instance = try store.resolve(IdentityKey(key), lifetime: .singleton, name: "k\(round)") { Thing() }
        live.append((key, instance))
        // Keep about forty alive, dropping one at random as each comes.
        if live.count > 40 { live.remove(at: Int(generator.next() % UInt64(live.count))) }
        for entry in live {
          let bits = SlotKeyBits(serial: entry.key.keySerial)
          precondition(store.published(bits: bits, as: Thing.self) === entry.instance, "round \(round)")
        }
      }
      // Their slots went with them, and the table was rarely copied.
      precondition(store.slotCount <= 2 * 40)
      precondition(store.replacedTableCount < 8)
    }
  }
}

/// A small deterministic generator, so that a failure repeats.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
