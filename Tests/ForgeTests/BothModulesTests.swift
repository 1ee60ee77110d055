import Forge
import ForgeInject
import Testing

// Issue 11: a file that imports both Forge and ForgeInject. There `@Inject`
// is ForgeInject's macro; `@Forge.Inject` names Forge's property wrapper.

extension AppContainer {
  var bothModulesService: Service { provide(.singleton) { Service("both modules") } }
}

final class BothModulesViewModel {
  @Forge.Inject(\.bothModulesService) var service
  @Inject var unused: Widget?
}

final class Widget: Sendable {}

@Suite("Forge and ForgeInject in one file")
struct BothModulesTests {
  @Test("@Forge.Inject is Forge's key-path wrapper where @Inject is ForgeInject's macro")
  func forgeInject() {
    let viewModel = BothModulesViewModel()
    #expect(viewModel.service.label == "both modules")
    #expect(viewModel.service === AppContainer.shared.bothModulesService)
    ForgeContainer.withShared(ForgeContainer()) {
      #expect(viewModel.unused == nil)
    }
  }
}
