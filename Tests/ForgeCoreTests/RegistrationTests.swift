import ForgeCore
import Testing

@Suite("Registered builders")
struct RegistrationTests {
  /// A builder that takes an argument, as ForgeInject's take the container.
  typealias Builder = @Sendable (String) -> Thing

  func bind(_ builder: Any, counting binds: Counter) -> (@Sendable () throws -> Thing)? {
    binds.increment()
    guard let builder = builder as? Builder else { return nil }
    return { builder("bound") }
  }

  @Test("a builder is kept as it is and bound once, on the key's first resolution")
  func bindsOnFirstResolution() throws {
    let store = SlotStore<String>()
    let binds = Counter()
    let builder: Builder = { Thing($0) }
    try store.register("k", name: .text("k"), lifetime: .transient, builder: builder, as: Thing.self) {
      bind($0, counting: binds)
    }
    #expect(binds.count == 0)  // registering binds nothing
    for _ in 0..<3 {
      let thing = try store.resolveRegistered("k", as: Thing.self) { bind($0, counting: binds) }
      #expect(thing.label == "bound")
    }
    #expect(binds.count == 1)
  }

  @Test("a builder its bind rejects is a type mismatch on the first resolution")
  func rejectedOnResolution() throws {
    let store = SlotStore<String>()
    try store.register("k", name: .text("k"), lifetime: .transient, builder: 42, as: Thing.self) {
      bind($0, counting: Counter())
    }
    #expect(throws: DependencyTypeMismatchError.self) {
      try store.resolveRegistered("k", as: Thing.self) { bind($0, counting: Counter()) }
    }
  }

  @Test("re-registering a resolved key with a builder its bind rejects stops with a message")
  func rejectedOnReRegistration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let store = SlotStore<String>()
      let builder: Builder = { Thing($0) }
      func bind(_ builder: Any) -> (@Sendable () throws -> Thing)? {
        guard let builder = builder as? Builder else { return nil }
        return { @Sendable in builder("bound") }
      }
      try store.register("k", name: .text("k"), lifetime: .transient, builder: builder, as: Thing.self, bind: bind)
      _ = try store.resolveRegistered("k", as: Thing.self, bind: bind)
      try store.register("k", name: .text("k"), lifetime: .transient, builder: 42, as: Thing.self, bind: bind)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("bind must accept the builders it is registered with"))
  }
}
