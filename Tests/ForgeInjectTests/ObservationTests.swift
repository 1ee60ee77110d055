import ForgeInject
import Observation
import Testing

// `@Inject` in an `@Observable` type: written before `@ObservationIgnored`,
// it compiles and resolves as anywhere else. Without `@ObservationIgnored`,
// or after it, the macro stops with an error and a fix-it
// (InjectMacroTests in ForgeInjectMacrosTests); Swift itself rejects an
// accessor macro's getter written after `@ObservationIgnored`.

@Observable
final class ObservedScreen {
  @Inject @ObservationIgnored var analytics: AnalyticsServiceProtocol
  var title = "screen"
}

@Suite("@Inject in @Observable types")
struct ObservationTests {
  @Test("@Inject @ObservationIgnored resolves lazily, once, and the other properties stay observed")
  func observedScreen() {
    let container = ForgeContainer()
    container.register(with: .transient) { _ in AnalyticsService() as AnalyticsServiceProtocol }
    ForgeContainer.withShared(container) {
      let screen = ObservedScreen()
      #expect(screen.analytics as AnyObject === screen.analytics as AnyObject)
      let changed = Counter()
      withObservationTracking {
        _ = screen.title
      } onChange: {
        changed.increment()
      }
      screen.title = "renamed"
      #expect(changed.count == 1)
    }
  }
}
