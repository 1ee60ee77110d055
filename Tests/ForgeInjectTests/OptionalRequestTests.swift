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
    #expect(throws: ForgeContainerError.missingFactoryMethod(String(reflecting: (any ClockProtocol).self))) {
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
