import ForgeCore
import Testing

@Suite("Lifetimes")
struct LifetimeTests {
  let store = SlotStore<String>()

  @Test("transient builds a new instance on every resolution")
  func transient() throws {
    let a = try store.resolve("t", lifetime: .transient, name: "t") { Thing() }
    let b = try store.resolve("t", lifetime: .transient, name: "t") { Thing() }
    #expect(a !== b)
  }

  @Test("singleton and cached build once", arguments: [Lifetime.singleton, .cached])
  func storedOnce(lifetime: Lifetime) throws {
    let counter = Counter()
    let a = try store.resolve("s", lifetime: lifetime, name: "s") {
      counter.increment()
      return Thing()
    }
    let b = try store.resolve("s", lifetime: lifetime, name: "s") {
      counter.increment()
      return Thing()
    }
    #expect(a === b)
    #expect(counter.count == 1)
  }

  @Test("clearing by lifetime drops only the matching instances")
  func clearing() throws {
    let singleton = try store.resolve("s", lifetime: .singleton, name: "s") { Thing() }
    let cached = try store.resolve("c", lifetime: .cached, name: "c") { Thing() }
    store.clearStored { $0 == .cached }
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing() } === singleton)
    #expect(try store.resolve("c", lifetime: .cached, name: "c") { Thing() } !== cached)
  }

  @Test("weak is shared while held and rebuilt after the last reference goes")
  func weak() throws {
    var first: Thing? = try store.resolve("w", lifetime: .weak, name: "w") { Thing("1") }
    let again = try store.resolve("w", lifetime: .weak, name: "w") { Thing("2") }
    #expect(again === first)
    weak let released = first
    first = nil
    _ = consume again
    #expect(released == nil)
    let rebuilt = try store.resolve("w", lifetime: .weak, name: "w") { Thing("3") }
    #expect(rebuilt.label == "3")
  }

  @Test("weak values that are not objects are built every time")
  func weakValue() throws {
    let counter = Counter()
    for _ in 0..<3 {
      _ = try store.resolve("v", lifetime: .weak, name: "v") {
        counter.increment()
        return 42
      }
    }
    #expect(counter.count == 3)
  }

  @Test("custom scopes are cleared by their identity only")
  func scoped() throws {
    struct SignUp {}
    struct Other {}
    let signUp = Lifetime.scoped(ObjectIdentifier(SignUp.self))
    let other = Lifetime.scoped(ObjectIdentifier(Other.self))
    let a = try store.resolve("a", lifetime: signUp, name: "a") { Thing() }
    let b = try store.resolve("b", lifetime: other, name: "b") { Thing() }
    store.clearStored { $0 == signUp }
    #expect(try store.resolve("a", lifetime: signUp, name: "a") { Thing() } !== a)
    #expect(try store.resolve("b", lifetime: other, name: "b") { Thing() } === b)
  }

  @Test("releasing a store releases what it kept")
  func releasingStore() throws {
    weak var kept: Thing?
    do {
      let local = SlotStore<String>()
      kept = try local.resolve("s", lifetime: .singleton, name: "s") { Thing() }
      #expect(kept != nil)
    }
    #expect(kept == nil)
  }

  @Test("the same key resolved as another type is a type mismatch")
  func mismatch() throws {
    _ = try store.resolve("k", lifetime: .singleton, name: "Box.k") { Thing() }
    let error = #expect(throws: DependencyTypeMismatchError.self) {
      _ = try store.resolve("k", lifetime: .singleton, name: "Box.k") { 1 }
    }
    #expect(error?.dependency == "Box.k")
    #expect(error?.expected == "Swift.Int")
    #expect(error?.description.contains("ForgeTestSupport.Thing") == true)
  }
}
