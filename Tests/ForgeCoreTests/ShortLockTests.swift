import ForgeCore
import ForgeTestSupport
import Foundation
import Testing

// An override scope's reach memo is guarded by a ShortLock: a
// compare-and-swap to take it, a store to give it up.
@Suite("A short lock", .timeLimit(.minutes(1)))
struct ShortLockTests {
  /// What only the lock keeps right: plain reads and writes, which
  /// ThreadSanitizer reports unless the lock orders them.
  final class Tally: @unchecked Sendable {
    var count = 0
    var inside = 0
    var overlaps = 0
  }

  @Test("four real threads adding under it lose no addition, and each holder is alone")
  func excludes() {
    let lock = ShortLock()
    defer { lock.deallocate() }
    let tally = Tally()
    onThreads(4) { _ in
      for _ in 0..<20_000 {
        lock.withLock {
          tally.inside += 1
          if tally.inside != 1 { tally.overlaps += 1 }
          tally.count += 1
          tally.inside -= 1
        }
      }
    }
    #expect(tally.count == 80_000)
    #expect(tally.overlaps == 0)
  }

  @Test("a thread that finds it held waits until the holder gives it up, then takes it")
  func waitsForTheHolder() {
    let lock = ShortLock()
    defer { lock.deallocate() }
    let held = Signal()
    let release = Signal()
    let order = Guarded<[String]>([])
    let holder = RealThread {
      lock.withLock {
        held.raise()
        _ = release.wait()
        order.withLock { $0.append("holder") }
      }
    }
    #expect(held.wait())
    let waiter = RealThread {
      lock.withLock { order.withLock { $0.append("waiter") } }
    }
    // The waiter is spinning and yielding meanwhile; it must not get in.
    Thread.sleep(forTimeInterval: 0.05)
    #expect(order.withLock { $0 }.isEmpty)
    release.raise()
    holder.join()
    waiter.join()
    #expect(order.withLock { $0 } == ["holder", "waiter"])
  }
}
