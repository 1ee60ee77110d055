import Forge
import Testing

// The README's Forge example, kept compiling and checked here.

protocol Greeter: Sendable { func greet(_ name: String) -> String }
struct EnglishGreeter: Greeter { func greet(_ name: String) -> String { "Hello, \(name)!" } }
struct MockGreeter: Greeter { func greet(_ name: String) -> String { "mock \(name)" } }

extension AppContainer {
  var greeter: any Greeter {
    provide(.singleton) {
      EnglishGreeter()
    } preview: {
      MockGreeter()
    }
  }
}

final class WelcomeViewModel {
  @Inject(\.greeter) private var greeter
  func title(for name: String) -> String { greeter.greet(name) }
}

@Suite("README")
struct ReadmeExampleTests {
  @Test("the Forge example works as the README says")
  func forgeExample() {
    #expect(WelcomeViewModel().title(for: "Ada") == "Hello, Ada!")
    AppContainer.shared.withOverrides {
      $0.override(\.greeter) { MockGreeter() }
    } run: {
      #expect(WelcomeViewModel().title(for: "Ada") == "mock Ada")
    }
    Forge.withPreviewMode {
      #expect(WelcomeViewModel().title(for: "Ada") == "mock Ada")
    }
  }

  @Test("the README's graph example works as it says")
  func graphExample() {
    // In a test: every problem at once, each with its chain and its fix.
    let report = AppContainer.shared.validate(\.greeter)
    #expect(report.isValid, "\(report)")

    // What was resolved, for a review or a document (also .dot and .json).
    print(AppContainer.shared.dependencyGraph().mermaid)

    // What each resolution did, as an indented tree.
    let token = AppContainer.shared.addObserver(ResolutionTreePrinter())
    _ = AppContainer.shared.greeter
    AppContainer.shared.removeObserver(token)

    #expect(report.checked == ["AppContainer.greeter"])
  }
}
