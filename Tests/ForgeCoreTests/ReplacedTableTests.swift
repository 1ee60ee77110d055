import ForgeCore
import ForgeTestSupport
import Testing

@Suite("Slot tables replaced by their copies", .timeLimit(.minutes(2)))
struct ReplacedTableTests {
  @Test("a store frees the tables its copies replaced, and every key is still found without the lock")
  func replacedTablesAreFreed() async {
    // In a process of its own: a parallel test's scope would send reads to
    // the lock, and this checks the lock-free read itself.
    await #expect(processExitsWith: .success) {
      let store = SlotStore<String>()
      var instances: [Thing] = []
      // 2,000 keys take the table from 16 entries to 4,096: eight copies.
      for index in 0..<2_000 {
        instances.append(try store.resolve("k\(index)", lifetime: .cached, name: .text("k\(index)")) { Thing() })
      }
      // Kept only where the process has no reclaimer's fence.
      let expected = HazardFences.kind == .none ? 8 : 0
      precondition(store.replacedTableCount == expected, "\(store.replacedTableCount) replaced tables kept")
      for (index, instance) in instances.enumerated() {
        precondition(store.published(bits: "k\(index)".identityBits!, as: Thing.self) === instance, "k\(index)")
      }
    }
  }

  @Test("threads reading without the lock while another thread's new keys copy the table read what was published")
  func readsDuringCopies() async {
    // In a process of its own, as above. A reader that probed a table after
    // it was freed would read freed memory: AddressSanitizer stops on it,
    // and without it a freed table's pages may be unmapped, or reused.
    await #expect(processExitsWith: .success) {
      let store = SlotStore<String>()
      let kept = try (0..<64).map { index in
        let key = "kept\(index)"
        let instance = try store.resolve(key, lifetime: .cached, name: .text(key)) { Thing(key) }
        return (bits: key.identityBits!, instance: instance)
      }
      let done = AtomicCounter()
      let readers = (0..<3).map { reader in
        RealThread {
          var index = reader
          var reads = 0
          while done.value == 0 || reads < 10_000 {
            let entry = kept[index % kept.count]
            precondition(store.published(bits: entry.bits, as: Thing.self) === entry.instance, "kept\(index)")
            index &+= 7
            reads += 1
          }
        }
      }
      let writer = RealThread {
        for index in 0..<20_000 {
          _ = try! store.resolve("new\(index)", lifetime: .cached, name: .text("new\(index)")) { Thing() }
        }
        _ = done.add(1)
      }
      writer.join(within: 100)
      for reader in readers { reader.join(within: 100) }
      done.deallocate()  // its own allocation: LeakSanitizer counts it
      precondition(HazardFences.kind == .none || store.replacedTableCount == 0)
    }
  }
}
