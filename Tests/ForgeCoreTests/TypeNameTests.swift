import ForgeCore
import Testing

private struct Hidden {}
private enum Outer {
  struct Inner<T> {}
}
private struct HiddenError: Error {}

@Suite("Type names: private types as messages spell them")
struct TypeNameTests {
  @Test("a private type loses the runtime's placeholder for its context, at any depth")
  func privateTypes() {
    #expect(String(reflecting: Hidden.self).contains("(unknown context at $"))
    #expect(TypeName.of(Hidden.self) == "ForgeCoreTests.Hidden")
    #expect(
      TypeName.of([Outer.Inner<Hidden>?].self)
        == "Swift.Array<Swift.Optional<ForgeCoreTests.Outer.Inner<ForgeCoreTests.Hidden>>>")
    #expect(TypeName.reflecting(HiddenError()) == "ForgeCoreTests.HiddenError()")
  }

  @Test("other names are kept as they are")
  func otherNames() {
    #expect(TypeName.of(Int.self) == "Swift.Int")
    #expect(TypeName.of(TypeNameTests.self) == "ForgeCoreTests.TypeNameTests")
    #expect(TypeName.readable("Provider<Swift.Int> (Providers.swift:3)") == "Provider<Swift.Int> (Providers.swift:3)")
    // A placeholder that is not closed is not guessed at.
    #expect(TypeName.readable("A.(unknown context at $12") == "A.(unknown context at $12")
  }
}
