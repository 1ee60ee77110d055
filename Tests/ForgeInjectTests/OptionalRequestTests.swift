import ForgeInject
import Testing

// Issue 11: an `Optional<W>` request that nothing registered as such
// resolves `W`, and is nil only when `W` itself is missing.

protocol ClockProtocol: Sendable { var hour: Int { get } }
final class FixedClock: ClockProtocol {
  let hour: Int
  init(hour: Int) { self.hour = hour }
}

final class OptionalInjections {
  let clock: ClockProtocol? = #inject()
  @Inject var widget: Widget?
}

@Suite("Optional requests")
struct OptionalRequestTests {
  func makeContainer() -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in FixedClock(hour: 9) as ClockProtocol }
    return container
  }

  @Test("an Optional request resolves the wrapped type")
  func resolvesWrapped() throws {
    let container = makeContainer()
    let clock: ClockProtocol? = try? container.resolve()
    #expect(clock?.hour == 9)
    let throughType = try container.resolveWithType(Optional<ClockProtocol>.self)
    #expect(throughType?.hour == 9)
    // The same singleton either way.
    let plain: ClockProtocol = try container.resolve()
    #expect(clock as? FixedClock === plain as? FixedClock)
  }

  @Test("a missing dependency of the wrapped type is thrown, even when its name is the wrapped type's")
  func missingNamesakeIsThrown() throws {
    let container = ForgeContainer()
    container.register { c in
      try resolveThisFilesNamesake(c)
      return Namesake()
    }
    #expect(throws: ForgeContainerError.self) {
      let _: Namesake? = try container.resolve()
    }
    // Unregistered, the wrapped type is nil as usual.
    #expect(try ForgeContainer().resolve() as Namesake? == nil)
  }

  @Test("it is nil when the wrapped type is not registered")
  func nilWhenMissing() throws {
    let widget: Widget? = try ForgeContainer().resolve()
    #expect(widget == nil)
  }

  @Test("a registration of the Optional type itself wins")
  func registeredOptional() throws {
    let container = makeContainer()
    container.register(with: .transient) { _ in Optional<ClockProtocol>.none }
    let clock: ClockProtocol? = try container.resolve()
    #expect(clock == nil)
  }

  @Test("a missing dependency of the wrapped type is an error, not nil")
  func missingDependencyThrows() {
    let container = ForgeContainer()
    container.register(with: .transient) { c in
      let clock: ClockProtocol = try c.resolve()
      return Widget("at \(clock.hour)")
    }
    #expect(
      throws: ForgeContainerError.missingFactoryMethod(
        "ForgeInjectTests.ClockProtocol (chain: ForgeInjectTests.Widget → ForgeInjectTests.ClockProtocol)")
    ) {
      let _: Widget? = try container.resolve()
    }
  }

  @Test("#inject() and @Inject resolve Optional properties the same way")
  func macros() {
    ForgeContainer.withShared(makeContainer()) {
      let owner = OptionalInjections()
      #expect(owner.clock?.hour == 9)
      #expect(owner.widget == nil)
    }
  }
}

// Seed 001: `.typeMismatch` "happens when you register a concrete type but
// resolve as a protocol, or vice versa", and names both types.
@Suite("Registered under another type")
struct TypeMismatchTests {
  @Test("a concrete registration resolved as a protocol it conforms to")
  func concreteAsProtocol() {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in FixedClock(hour: 9) }
    #expect(
      throws: ForgeContainerError.typeMismatch(
        "ForgeInjectTests.ClockProtocol (registered as ForgeInjectTests.FixedClock)")
    ) {
      let _: ClockProtocol = try container.resolve()
    }
  }

  @Test("a protocol registration resolved as a concrete type that conforms")
  func protocolAsConcrete() {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in FixedClock(hour: 9) as ClockProtocol }
    #expect(
      throws: ForgeContainerError.typeMismatch(
        "ForgeInjectTests.FixedClock (registered as ForgeInjectTests.ClockProtocol)")
    ) {
      let _: FixedClock = try container.resolve()
    }
  }

  @Test("a subclass registration resolved as its superclass")
  func subclass() {
    class Base: @unchecked Sendable {}
    final class Derived: Base, @unchecked Sendable {}
    let container = ForgeContainer()
    container.register { _ in Derived() }
    #expect(throws: ForgeContainerError.self) {
      let _: Base = try container.resolve()
    }
    do {
      let _: Base = try container.resolve()
    } catch let error as ForgeContainerError {
      guard case .typeMismatch(let names) = error else {
        Issue.record("expected .typeMismatch, got \(error)")
        return
      }
      #expect(names.contains("Base (registered as ") && names.contains("Derived)"))
    } catch {
      Issue.record("expected a ForgeContainerError, got \(error)")
    }
  }

  @Test("an unrelated registration is still a missing factory")
  func unrelated() {
    let container = ForgeContainer()
    container.register { _ in Widget() }
    #expect(throws: ForgeContainerError.missingFactoryMethod("ForgeInjectTests.FixedClock")) {
      let _: FixedClock = try container.resolve()
    }
    #expect(throws: ForgeContainerError.missingFactoryMethod("ForgeInjectTests.ClockProtocol")) {
      let _: ClockProtocol = try container.resolve()
    }
  }
}

/// Shares its name with `NamesakeFixture.swift`'s private type.
private struct Namesake: Sendable, Equatable {}
