import SwiftPod
import Testing

// The README's SwiftPod example, kept compiling and checked here.

final class ReadmeSignUpScope: ProviderScope {
  let children: [any ProviderScope] = []
}

final class Draft: Sendable {}
struct Greeting: Sendable { let text: String }

let nameProvider = Provider { _ in "Ada" }
let greetingProvider = Provider(scope: AlwaysCreateNewScope()) { pod in
  Greeting(text: "Hello, \(pod.resolve(nameProvider))!")
}
let draftProvider = Provider(scope: ReadmeSignUpScope()) { _ in Draft() }

@Suite("README")
struct ReadmeExampleTests {
  @Test("the SwiftPod example works as the README says")
  func swiftPodExample() {
    let pod = SwiftPod()
    let greeting = pod.resolve(greetingProvider)  // "Hello, Ada!"
    #expect(greeting.text == "Hello, Ada!")
    let draft = pod.resolve(draftProvider)
    pod.overrideProvider(nameProvider) { _ in "Grace" }  // tests and previews
    #expect(pod.resolve(greetingProvider).text == "Hello, Grace!")
    pod.clearCachedInstances(forScope: ReadmeSignUpScope())  // and every child scope
    #expect(pod.resolve(draftProvider) !== draft)
  }
}
