import ForgeCore
import ForgeTestSupport
import Testing

@Suite("Slot names", .timeLimit(.minutes(1)))
struct SlotNameTests {
  private struct Owner {}

  /// Notes the dependency every event names.
  private struct NameLog: ResolutionObserver {
    let names: Guarded<[String]>
    func resolution(_ event: ResolutionEvent) { names.withLock { $0.append(event.dependency) } }
  }

  @Test("a member's name renders as Owner.member, and threads that ask for it at once all get it")
  func memberNameOnManyThreads() {
    // Forge names a slot `.member(of:)`: rendered the first time a
    // message, graph or trace asks, then kept. Eight real threads make the
    // trace ask at the same moment, so several render it and one keeps
    // its rendering.
    let store = SlotStore<String>()
    let names = Guarded<[String]>([])
    let token = store.addObserver(NameLog(names: names))
    defer { store.removeObserver(token) }
    let start = Signal()
    let threads = (0..<8).map { _ in
      RealThread {
        _ = start.wait()
        _ = try? store.resolve("k", lifetime: .transient, name: .member(of: Owner.self, "k")) { Thing() }
      }
    }
    start.raise()
    for thread in threads { thread.join() }
    let seen = names.withLock { $0 }
    #expect(seen.count >= 8)
    #expect(Set(seen) == ["\(String(describing: Owner.self)).k"])
  }

  @Test("a type mismatch names the member as it renders")
  func memberNameInMismatch() throws {
    let store = SlotStore<String>()
    _ = try store.resolve("k", lifetime: .singleton, name: .member(of: Owner.self, "k")) { Thing() }
    let error = #expect(throws: DependencyTypeMismatchError.self) {
      try store.resolve("k", lifetime: .singleton, name: .member(of: Owner.self, "k")) { 1 }
    }
    #expect(error?.dependency == "\(String(describing: Owner.self)).k")
  }
}
