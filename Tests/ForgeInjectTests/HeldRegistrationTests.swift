import ForgeInject
import Synchronization
import Testing

/// A flag set from any thread.
private final class Flag: Sendable {
  private let state = Atomic(false)
  var isSet: Bool { state.load(ordering: .relaxed) }
  func set() { state.store(true, ordering: .relaxed) }
}

/// Something a builder captures, which says when it is gone.
private final class Captured: Sendable {
  let label: String
  let released: Flag

  init(_ label: String, released: Flag) {
    self.label = label
    self.released = released
  }

  deinit { released.set() }
}

/// Marks its builder's type: each level of the chain below is a type of
/// its own, so that each is built at a depth of its own.
private struct Level<Below>: Sendable {
  let label: String
}

private typealias L1 = Level<Void>
private typealias L2 = Level<L1>
private typealias L3 = Level<L2>
private typealias L4 = Level<L3>
private typealias L5 = Level<L4>
private typealias L6 = Level<L5>
private typealias L7 = Level<L6>
private typealias L8 = Level<L7>
private typealias L9 = Level<L8>
private typealias L10 = Level<L9>
private typealias L11 = Level<L10>

/// A transient's build runs its registered builder without copying it: the
/// registration stays held for the build. These say that what the builder
/// captured stays alive for the whole build even when the builder replaces
/// its own registration, at every build depth (the engine holds it one way
/// in shallow builds and another in deep ones).
///
/// The shallow case checks the hazard pointer that keeps the registration:
/// in an optimised build (CI's release run) the builder is then not
/// retained, and these fail if the registration is let go before the build
/// ends. A debug build retains it anyway.
@Suite("ForgeContainer: a builder outlives its replaced registration", .timeLimit(.minutes(1)))
struct HeldRegistrationTests {
  /// Registers, for `L`, a transient builder that captures a `Captured`,
  /// replaces its own registration, and then reads what it captured.
  /// Returns whether the capture had been released when it was read.
  private static func registerReplacing<L>(
    _ type: Level<L>.Type,
    in container: ForgeContainer,
    resolvingBelow: @escaping @Sendable (ForgeContainerProtocol) throws -> Void,
    releasedWhileBuilding: Flag
  ) -> Flag {
    // Resolved once first, so that the type's slot exists and the build
    // below takes the path that knows it.
    container.register(with: .transient) { _ in Level<L>(label: "zero") }
    _ = try? container.resolve() as Level<L>
    let released = Flag()
    let captured = Captured("first", released: released)
    container.register(with: .transient) { [unowned container] resolver in
      try resolvingBelow(resolver)
      // Nothing else holds the first builder once it is replaced.
      container.register(with: .transient) { _ in Level<L>(label: "second") }
      if captured.released.isSet { releasedWhileBuilding.set() }
      return Level<L>(label: captured.label)
    }
    return released
  }

  @Test("a builder that replaces its own registration, resolved directly, keeps what it captured")
  func shallow() throws {
    let container = ForgeContainer()
    let releasedWhileBuilding = Flag()
    let released = Self.registerReplacing(
      L1.self, in: container, resolvingBelow: { _ in }, releasedWhileBuilding: releasedWhileBuilding)
    let first: L1 = try container.resolve()
    #expect(first.label == "first")
    #expect(!releasedWhileBuilding.isSet)
    // The new builder builds from then on…
    let second: L1 = try container.resolve()
    #expect(second.label == "second")
    // …and the replaced one is let go at the latest when the container
    // next retires something.
    container.register(with: .transient) { _ in L1(label: "third") }
    #expect(released.isSet)
  }

  @Test("a builder that replaces its own registration, ten builds deep, keeps what it captured")
  func deep() throws {
    let container = ForgeContainer()
    let releasedWhileBuilding = Flag()
    // L1 … L10, each resolving the one below; L11 replaces its registration
    // at the eleventh level of the chain, and L1 at the first.
    let first = Self.registerReplacing(
      L1.self, in: container, resolvingBelow: { _ in }, releasedWhileBuilding: releasedWhileBuilding)
    container.register(with: .transient) { c in L2(label: (try c.resolve() as L1).label) }
    container.register(with: .transient) { c in L3(label: (try c.resolve() as L2).label) }
    container.register(with: .transient) { c in L4(label: (try c.resolve() as L3).label) }
    container.register(with: .transient) { c in L5(label: (try c.resolve() as L4).label) }
    container.register(with: .transient) { c in L6(label: (try c.resolve() as L5).label) }
    container.register(with: .transient) { c in L7(label: (try c.resolve() as L6).label) }
    container.register(with: .transient) { c in L8(label: (try c.resolve() as L7).label) }
    container.register(with: .transient) { c in L9(label: (try c.resolve() as L8).label) }
    container.register(with: .transient) { c in L10(label: (try c.resolve() as L9).label) }
    let top = Self.registerReplacing(
      L11.self, in: container, resolvingBelow: { c in _ = try c.resolve() as L10 },
      releasedWhileBuilding: releasedWhileBuilding)
    let built: L11 = try container.resolve()
    #expect(built.label == "first")
    #expect(!releasedWhileBuilding.isSet)
    // The chain now reaches the replacements…
    #expect((try container.resolve() as L10).label == "second")
    #expect((try container.resolve() as L11).label == "second")
    // …and the replaced builders are let go at the latest when the
    // container next retires something.
    container.register(with: .transient) { _ in L1(label: "third") }
    #expect(first.isSet)
    #expect(top.isSet)
  }
}
