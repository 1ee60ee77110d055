import ForgeCore
import Testing

private protocol Shape { var sides: Int { get } }
private protocol Named {}
private final class Square: Shape, Named { var sides: Int { 4 } }
private class Base {}
private final class Derived: Base {}
private struct Plain {}

@Suite("TypeRelation: conformance from metatypes")
struct TypeRelationTests {
  @Test("protocols, compositions, classes, Any and AnyObject, as the language decides")
  func relation() {
    #expect(TypeRelation.isUsable(Square.self, as: (any Shape).self))
    #expect(TypeRelation.isUsable(Square.self, as: (any Shape & Named).self))
    #expect(!TypeRelation.isUsable(Plain.self, as: (any Shape).self))
    #expect(!TypeRelation.isUsable(Plain.self, as: (any Shape & Named).self))
    #expect(TypeRelation.isUsable(Derived.self, as: Base.self))
    #expect(!TypeRelation.isUsable(Base.self, as: Derived.self))
    #expect(TypeRelation.isUsable(Plain.self, as: Any.self))
    #expect(TypeRelation.isUsable(Square.self, as: AnyObject.self))
    #expect(!TypeRelation.isUsable(Plain.self, as: AnyObject.self))
    #expect(!TypeRelation.isUsable((any Shape).self, as: Square.self))
    #expect(TypeRelation.isUsable(Plain.self, as: Plain.self))
  }
}
