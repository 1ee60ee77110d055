import Forge
import Testing

/// A cycle whose closing read is `first`; the stop must point at its line.
final class LocatedCycleContainer: Container, @unchecked Sendable {
  static let firstLine = #line + 1
  var first: [Any] { provide(.singleton) { [self.second] } }
  var second: [Any] { provide { [self.first] } }
}

final class LocatedMismatchContainer: Container, @unchecked Sendable {
  static let numberLine = #line + 1
  var number: Int { provide(.cached) { "not a number" } }
  var plain: Int { 42 }
}

/// A site whose line does not fit in a packed site's 32 bits: its miss
/// passes the site as it is. (A stop there cannot be checked: the standard
/// library's `fatalError` itself stops on a line past 2³².)
final class FarLineContainer: Container, @unchecked Sendable {
  var kept: Service { provide(.cached, line: 1 << 40) { Service("far") } }
  var forever: Service { provide(.singleton, line: 1 << 40) { Service("forever") } }
}

@Suite("Where a stop points")
struct StopLocationTests {
  @Test("a site whose line does not fit a packed site keeps its instances as its scope says")
  func farLine() {
    let container = FarLineContainer()
    let kept = container.kept
    let forever = container.forever
    #expect(container.kept === kept && container.forever === forever)
    container.resetCached()
    #expect(container.kept !== kept)  // .cached, as declared
    #expect(container.forever === forever)  // .singleton
  }

  @Test("a failed resolution stops at the declaration of the dependency that failed, not inside Forge")
  func cycleStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = LocatedCycleContainer().first
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "ForgeTests/StopLocationTests.swift:\(LocatedCycleContainer.firstLine): Fatal error: Forge: [Forge.cycle]"))
    #expect(!beforeBacktrace(stderr).contains("Container.swift:"))
  }

  @Test("a type mismatch stops at the provide that produced the wrong type")
  func mismatchStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = LocatedMismatchContainer().number
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "ForgeTests/StopLocationTests.swift:\(LocatedMismatchContainer.numberLine): Fatal error: Forge: [Forge.typeMismatch]"
      ))
  }

  // Inside an exit test's body `#line` names the `#expect` line (the body is
  // a macro expansion), so the calls whose line is checked live below.

  @Test("a misdirected override stops at the override, directly or in withOverrides")
  func misdirectedOverrideStopsAtOverride() async {
    let direct = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      OverrideSites.nestedKeyPath()
    }
    let directErr = String(decoding: direct?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      directErr.contains(
        "ForgeTests/StopLocationTests.swift:\(OverrideSites.nestedLine): Fatal error: Forge: [Forge.overrideMisdirected]"
      ))

    let scoped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      OverrideSites.halfOverriddenInScope()
    }
    let scopedErr = String(decoding: scoped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      scopedErr.contains(
        "ForgeTests/StopLocationTests.swift:\(OverrideSites.scopedLine): Fatal error: Forge: [Forge.overrideMisdirected]"
      ))
  }

  @Test("an injection without a default container stops at the property")
  func noContainerStopsAtProperty() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      Forge.defaultContainer = nil
      _ = LocatedConsumer()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "ForgeTests/StopLocationTests.swift:\(LocatedConsumer.serviceLine): Fatal error: Forge: [Forge.noContainer]"
      ))
  }

  @Test("a key path whose property does not provide stops at the override")
  func notProvidedStopsAtOverride() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      OverrideSites.notProvided()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "ForgeTests/StopLocationTests.swift:\(OverrideSites.notProvidedLine): Fatal error: Forge: [Forge.overrideNotProvided]"
      ))
  }
}

/// Injects from `Forge.defaultContainer`, on a line the tests above know.
final class LocatedConsumer {
  static let serviceLine = #line + 1
  @ContainerInject<Container, Service>(\.forgeTestsServiceOnContainer) var service
}

/// Overrides that stop, each on a line the tests above know.
enum OverrideSites {
  static let nestedLine = #line + 2
  static func nestedKeyPath() {
    MisdirectionContainer().override(\.service.net) { Service("mock") }
  }

  static let scopedLine = #line + 4
  static func halfOverriddenInScope() {
    let container = MisdirectionContainer()
    container.withOverrides {
      $0.override(\.sum) { 100 }
    } run: {
      _ = container.sum  // the first resolution finds the second provide
    }
  }

  static let notProvidedLine = #line + 2
  static func notProvided() {
    LocatedMismatchContainer().override(\.plain) { 3 }
  }
}
