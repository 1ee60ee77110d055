import Forge
import ForgeTesting
import SwiftPod
import Testing

// The README's ForgeTesting example, kept compiling and checked here.

protocol Greeter: Sendable { func greet(_ name: String) -> String }
struct EnglishGreeter: Greeter { func greet(_ name: String) -> String { "Hello, \(name)!" } }
struct MockGreeter: Greeter { func greet(_ name: String) -> String { "mock \(name)" } }

extension AppContainer {
  var greeter: any Greeter { provide(.singleton) { EnglishGreeter() } }
}

final class WelcomeViewModel {
  @Inject(\.greeter) private var greeter
  func title(for name: String) -> String { greeter.greet(name) }
}

@Test(.isolated(AppContainer.shared) { $0.override(\.greeter) { MockGreeter() } })
func welcome() {
  #expect(WelcomeViewModel().title(for: "Ada") == "mock Ada")
}

@Test("without the trait, the real greeter")
func welcomeReal() {
  #expect(WelcomeViewModel().title(for: "Ada") == "Hello, Ada!")
}

let greeterPod = SwiftPod()
let greeterProvider = Provider { _ -> any Greeter in EnglishGreeter() }

@Test(.isolated(greeterPod) { $0.overrideProvider(greeterProvider, in: greeterPod) { _ in MockGreeter() } })
func podWelcome() {
  #expect(greeterPod.resolve(greeterProvider).greet("Ada") == "mock Ada")
}

@Test("without the trait, the pod's real greeter")
func podWelcomeReal() {
  #expect(greeterPod.resolve(greeterProvider).greet("Ada") == "Hello, Ada!")
}
