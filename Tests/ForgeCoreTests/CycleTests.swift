import Dispatch
import ForgeCore
import Testing

@Suite("Cycle detection", .timeLimit(.minutes(1)))
struct CycleTests {
  @Test("a cycle among stored dependencies reports the whole path")
  func storedCycle() {
    let store = SlotStore<String>()
    func a() throws -> Thing {
      try store.resolve("a", lifetime: .singleton, name: "a") {
        _ = try b()
        return Thing()
      }
    }
    func b() throws -> Thing {
      try store.resolve("b", lifetime: .transient, name: "b") {
        _ = try c()
        return Thing()
      }
    }
    func c() throws -> Thing {
      try store.resolve("c", lifetime: .cached, name: "c") {
        _ = try a()
        return Thing()
      }
    }
    let error = #expect(throws: DependencyCycleError.self) { try a() }
    #expect(error?.path == ["a", "b", "c", "a"])
    #expect(error?.description.hasPrefix("[Forge.cycle] Dependency cycle: a → b → c → a.") == true)
  }

  @Test("a transient dependency that needs itself is a cycle, not a stack overflow")
  func transientSelfCycle() {
    let store = SlotStore<String>()
    func loop() throws -> Thing { try store.resolve("loop", lifetime: .transient, name: "loop") { try loop() } }
    let error = #expect(throws: DependencyCycleError.self) { try loop() }
    #expect(error?.path == ["loop", "loop"])
  }

  @Test("after a cycle the store is usable again")
  func recovers() throws {
    let store = SlotStore<String>()
    let broken = LockedValue(true)
    func a() throws -> Thing {
      try store.resolve("a", lifetime: .singleton, name: "a") {
        if broken.current { _ = try a() }
        return Thing()
      }
    }
    #expect(throws: DependencyCycleError.self) { try a() }
    broken.current = false
    #expect(throws: Never.self) { try a() }
  }

  @Test("two threads each building half of a cycle both get the error instead of deadlocking")
  func crossThreadCycle() {
    let store = SlotStore<String>()
    let aStarted = DispatchSemaphore(value: 0)
    let bStarted = DispatchSemaphore(value: 0)
    let errors = LockedValue<[DependencyCycleError]>([])
    @Sendable func a() throws -> Thing {
      try store.resolve("a", lifetime: .singleton, name: "a") {
        aStarted.signal()
        bStarted.wait()
        _ = try b()
        return Thing()
      }
    }
    @Sendable func b() throws -> Thing {
      try store.resolve("b", lifetime: .singleton, name: "b") {
        bStarted.signal()
        aStarted.wait()
        _ = try a()
        return Thing()
      }
    }
    onThreads(2) { index in
      do {
        _ = try index == 0 ? a() : b()
      } catch let cycle as DependencyCycleError {
        errors.withValue { $0.append(cycle) }
        // Let the other thread past its semaphore if it is waiting on one.
        aStarted.signal()
        bStarted.signal()
      } catch {}
    }
    #expect(errors.current.count == 2)
    for error in errors.current {
      #expect(Set(error.path) == ["a", "b"])
      #expect(error.path.first == error.path.last)
    }
  }
}
