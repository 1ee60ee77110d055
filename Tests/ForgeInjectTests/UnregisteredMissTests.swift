import ForgeInject
import ForgeTestSupport
import Foundation
import Testing

/// Types registered by these tests only, one per test.
enum Misses {
  final class Registered: Sendable {}
  final class Late: Sendable {}
  final class Raced: Sendable {}
  final class Eager: Sendable {}
  final class Never: Sendable {}
}

/// A resolution of a type with no registration is decided without the
/// container's lock once every registration has been resolved; these check
/// that it never hides a registration.
@Suite("ForgeInject: resolving what is not registered", .timeLimit(.minutes(1)))
struct UnregisteredMissTests {
  @Test("a type registered after a miss resolves")
  func registeredAfterMiss() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Misses.Registered() }
    _ = try container.resolve() as Misses.Registered  // nothing is waiting to be resolved now
    #expect(throws: ForgeContainerError.self) { try container.resolve() as Misses.Late }
    container.register { _ in Misses.Late() }
    _ = try container.resolve() as Misses.Late
    #expect(throws: ForgeContainerError.self) { try container.resolve() as Misses.Never }
  }

  @Test("a type registered eagerly with a main-actor builder resolves, and misses stay misses")
  @MainActor func eager() throws {
    let container = ForgeContainer()
    container.register(with: .singleton, mainActorBuilder: { _ in Misses.Eager() })
    _ = try container.resolve() as Misses.Eager
    #expect(throws: ForgeContainerError.self) { try container.resolve() as Misses.Never }
  }

  @Test("a resolution that starts after a registration returned, on another thread, finds it")
  func raced() {
    for _ in 0..<50 {
      let container = ForgeContainer()
      container.register(with: .singleton) { _ in Misses.Registered() }
      _ = try? container.resolve() as Misses.Registered
      let registered = LockedValue(false)
      let missedAfterRegistration = LockedValue(0)
      onThreads(3) { index in
        if index == 0 {
          container.register { _ in Misses.Raced() }
          registered.withValue { $0 = true }
          return
        }
        for _ in 0..<200 {
          let wasRegistered = registered.current
          if (try? container.resolve() as Misses.Raced) == nil, wasRegistered {
            missedAfterRegistration.withValue { $0 += 1 }
          }
        }
      }
      #expect(missedAfterRegistration.current == 0)
      #expect((try? container.resolve() as Misses.Raced) != nil)
    }
  }
}
