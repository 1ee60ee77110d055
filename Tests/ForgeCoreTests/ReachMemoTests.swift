import ForgeCore
import ForgeTestSupport
import Testing

/// An override scope's memo of reach depths (`ReachMemo`) against a
/// dictionary, for a seeded run of sets and lookups: growth, overwrites,
/// answers from an earlier epoch, and slots never set.
@Suite("An override scope's reach memo", .timeLimit(.minutes(1)))
struct ReachMemoTests {
  @Test("answers as a dictionary of (epoch, depth) by slot does, through growth and overwrites", arguments: [1, 7, 42])
  func agreesWithDictionary(seed: UInt64) {
    let objects = (0..<600).map { _ in Thing() }
    let slots = objects.map(ObjectIdentifier.init)
    var memo = ReachMemo()
    var model: [ObjectIdentifier: (epoch: Int, depth: Int)] = [:]
    var random = SplitMix(seed: seed)
    for step in 0..<20_000 {
      // Slots past the first 400 are looked up (every tenth step) but
      // never set.
      let index = Int.random(in: 0..<(step % 10 == 0 ? 600 : 400), using: &random)
      let slot = slots[index]
      let epoch = Int.random(in: 0..<3, using: &random)
      if Bool.random(using: &random) && index < 400 {
        let depth = Int.random(in: 0..<5, using: &random)
        memo.set(depth, for: slot, epoch: epoch)
        model[slot] = (epoch, depth)
      } else {
        let expected = model[slot].flatMap { $0.epoch == epoch ? $0.depth : nil }
        #expect(memo.depth(for: slot, epoch: epoch) == expected, "seed \(seed), step \(step)")
      }
    }
    #expect(model.count > 300)
    withExtendedLifetime(objects) {}
  }
}
