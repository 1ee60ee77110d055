import Forge
import Testing

// `provide` without a preview keeps the factory's own type until the
// property's type is known (no `Any` box). The dependency is still the
// property's type: these check each conversion a factory's expression may
// need on the way, and that the slot, overrides included, has the
// property's type.

protocol Greeting: Sendable { var text: String { get } }
struct Hello: Greeting { let text = "hello" }
struct Mocked: Greeting { let text = "mock" }

class BaseService: @unchecked Sendable { var kind: String { "base" } }
final class DerivedService: BaseService, @unchecked Sendable { override var kind: String { "derived" } }

final class FactoryTypeContainer: Container, @unchecked Sendable {
  let builds = Counter()

  var greeting: any Greeting { provide(.singleton) { Hello() } }
  var transientGreeting: any Greeting { provide(.transient) { Hello() } }
  var base: BaseService { provide(.cached) { DerivedService() } }
  var maybe: Int? { provide(.singleton) { 5 } }
  var counted: Service {
    provide(.singleton) {
      self.builds.increment()
      return Service()
    }
  }
  var greetingWithPreview: any Greeting {
    provide(.singleton) {
      Hello()
    } preview: {
      Mocked()
    }
  }
}

@Suite("provide: a factory's own type, converted to the property's", .timeLimit(.minutes(1)))
struct FactoryTypeTests {
  let container = FactoryTypeContainer()

  @Test("a protocol-typed property keeps one instance and takes an override of its own type")
  func protocolProperty() {
    #expect(container.greeting.text == "hello")
    #expect(container.transientGreeting.text == "hello")
    container.override(\.greeting) { Mocked() }
    container.override(\.transientGreeting) { Mocked() }
    #expect(container.greeting.text == "mock")
    #expect(container.transientGreeting.text == "mock")
    container.removeOverride(for: \.greeting)
    #expect(container.greeting.text == "hello")
  }

  @Test("a subclass built for a class-typed property is kept as that class")
  func subclass() {
    let first = container.base
    #expect(first.kind == "derived")
    #expect(container.base === first)
    container.override(\.base) { BaseService() }
    #expect(container.base.kind == "base")
  }

  @Test("a value built for an optional property is wrapped")
  func optional() {
    #expect(container.maybe == 5)
    container.override(\.maybe) { nil }
    #expect(container.maybe == nil)
  }

  @Test("a factory with statements builds once")
  func statements() {
    let first = container.counted
    #expect(container.counted === first)
    #expect(container.builds.count == 1)
  }

  @Test("with a preview, each factory serves its own mode")
  func withPreview() {
    #expect(container.greetingWithPreview.text == "hello")
    let previewed = Forge.withPreviewMode { FactoryTypeContainer().greetingWithPreview.text }
    #expect(previewed == "mock")
  }
}
