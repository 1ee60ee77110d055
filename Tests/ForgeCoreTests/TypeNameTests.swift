import ForgeCore
import ForgeTestSupport
import Testing

private struct Hidden {}
private enum Outer {
  struct Inner<T> {}
}
private struct HiddenError: Error {}

@Suite("Type names: private types as messages spell them", .timeLimit(.minutes(1)))
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

  @Test("a name rendered once is the same name everywhere after, on every thread")
  func keptNames() {
    // Types the process has not named yet, named from eight threads at
    // once: each thread must read each type's own name, whichever thread
    // rendered it first.
    let types: [Any.Type] = [
      Outer.Inner<Int8>.self, Outer.Inner<Int16>.self, Outer.Inner<Int32>.self, Outer.Inner<Int64>.self,
      Outer.Inner<UInt8>.self, Outer.Inner<UInt16>.self, Outer.Inner<UInt32>.self, Outer.Inner<UInt64>.self,
    ]
    let expected = types.map { TypeName.readable(String(reflecting: $0)) }
    #expect(expected[0] == "ForgeCoreTests.Outer.Inner<Swift.Int8>")
    #expect(Set(expected).count == types.count)
    let wrong = Counter()
    onThreads(8) { thread in
      for round in 0..<200 {
        let index = (thread + round) % types.count
        if TypeName.of(types[index]) != expected[index] { wrong.increment() }
      }
    }
    #expect(wrong.count == 0)
    #expect(types.map(TypeName.of) == expected)
  }
}
