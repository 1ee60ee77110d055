import ForgeCore
import ForgeTestSupport
import Testing

/// `TaskLocal.boundObject()` reads a task-local's object where the runtime
/// stores it; it must answer as `get()` does in every binding state.
@Suite("Task-local objects read in place", .timeLimit(.minutes(1)))
struct TaskLocalObjectTests {
  @TaskLocal static var bound: Thing?

  @Test("unbound, bound, bound to nil inside, and in a child task, as get() answers")
  func answersAsGet() async {
    #expect(Self.$bound.boundObject() == nil)
    let outer = Thing("outer")
    let inner = Thing("inner")
    await Self.$bound.withValue(outer) {
      #expect(Self.$bound.boundObject() === outer)
      Self.$bound.withValue(inner) { #expect(Self.$bound.boundObject() === inner) }
      Self.$bound.withValue(nil) { #expect(Self.$bound.boundObject() == nil) }
      #expect(Self.$bound.boundObject() === outer)
      let fromChild = await Task { Self.$bound.boundObject() }.value
      #expect(fromChild === outer)
    }
    #expect(Self.$bound.boundObject() == nil)
  }

  @Test("on a thread outside any task, a binding made there")
  func outsideTask() {
    let thing = Thing()
    let seen = LockedValue<[Bool]>([])
    RealThread {
      let before = Self.$bound.boundObject() == nil
      let during = Self.$bound.withValue(thing) { Self.$bound.boundObject() === thing }
      seen.withValue { $0 = [before, during, Self.$bound.boundObject() == nil] }
    }.join()
    #expect(seen.current == [true, true, true])
  }
}
