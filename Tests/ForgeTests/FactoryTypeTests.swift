import Forge
import Testing

// `provide` keeps the factory's own type, and the preview's, until the
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
  var transientWithPreview: any Greeting {
    provide {
      Hello()
    } preview: {
      Mocked()
    }
  }
  var baseWithPreview: BaseService {
    provide(.cached) {
      DerivedService()
    } preview: {
      BaseService()
    }
  }
  var transientCounted: Service {
    provide {
      self.builds.increment()
      return Service("real")
    } preview: {
      Service("preview")
    }
  }
  // The seed's own `provide`, whose closures return `Any`.
  var anyNumber: Int {
    provide(.cached) { () -> Any in
      self.builds.increment()
      return 42
    }
  }
  var anyGreeting: any Greeting { provide(.singleton) { () -> Any in Hello() } }
  var anyBase: BaseService { provide(.transient) { () -> Any in DerivedService() } }
  var countedWithPreview: Service {
    provide(.singleton) {
      self.builds.increment()
      return Service("real")
    } preview: {
      Service("preview")
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

  @Test("the seed's factories that return Any: an instance of the property's type, or one converted to it")
  func anyFactories() {
    #expect(container.anyNumber == 42)
    #expect(container.anyNumber == 42)
    #expect(container.builds.count == 1)
    #expect(container.anyGreeting.text == "hello")
    #expect(container.anyBase.kind == "derived")
    #expect(container.anyBase !== container.anyBase)
    container.override(\.anyNumber) { 7 }
    #expect(container.anyNumber == 7)
    #expect(container.builds.count == 1)
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

  @Test("with a preview of another type, each is converted to the property's type")
  func previewOfAnotherType() {
    #expect(container.transientWithPreview.text == "hello")
    #expect(container.baseWithPreview.kind == "derived")
    #expect(container.baseWithPreview === container.baseWithPreview)
    Forge.withPreviewMode {
      let previewing = FactoryTypeContainer()
      #expect(previewing.transientWithPreview.text == "mock")
      #expect(previewing.baseWithPreview.kind == "base")
      // A preview's instance is never kept.
      #expect(previewing.baseWithPreview !== previewing.baseWithPreview)
    }
  }

  @Test("with a preview, the factory builds a kept instance once and an override wins over both")
  func previewKeptAndOverridden() {
    let first = container.countedWithPreview
    #expect(first.label == "real")
    #expect(container.countedWithPreview === first)
    #expect(container.builds.count == 1)
    container.override(\.countedWithPreview) { Service("mock") }
    #expect(container.countedWithPreview.label == "mock")
    Forge.withPreviewMode { #expect(container.countedWithPreview.label == "mock") }
    container.override(\.transientWithPreview) { Mocked() }
    Forge.withPreviewMode { #expect(container.transientWithPreview.text == "mock") }
    #expect(container.builds.count == 1)
  }

  @Test("a preview of the wrong type stops with a message naming both types and the preview")
  func previewOfWrongType() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class WrongPreview: Container, @unchecked Sendable {
        var number: Int {
          provide {
            1
          } preview: {
            "not a number"
          }
        }
      }
      _ = Forge.withPreviewMode { WrongPreview().number }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "Type mismatch resolving WrongPreview.number: expected Swift.Int, but it produces Swift.String from its preview factory"
      ))
  }

  @Test("a transient built before goes on building per read, and gives way to scopes, previews and observers")
  func transientBuiltBefore() {
    // After its first build, a transient's slot is known and its builds
    // take the short path in `provide`: what wins over its factory must
    // still win there.
    let first = container.transientCounted
    let second = container.transientCounted
    #expect(first !== second)
    #expect(container.builds.count == 2)
    container.withOverrides {
      $0.override(\.transientCounted) { Service("scoped") }
    } run: {
      #expect(container.transientCounted.label == "scoped")
    }
    Forge.withPreviewMode { #expect(container.transientCounted.label == "preview") }
    let events = TransientEvents()
    let token = container.addObserver(events)
    #expect(container.transientCounted.label == "real")
    container.removeObserver(token)
    #expect(events.builds == 1)
    #expect(container.transientCounted.label == "real")
    #expect(container.builds.count == 4)
  }

  @Test("a transient whose later build has the wrong type stops with the mismatch")
  func transientOfWrongTypeLater() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Drifting: Container, @unchecked Sendable {
        let reads = Counter()
        var number: Int { provide { self.reads.incremented() == 1 ? 1 as Any : "two" as Any } }
      }
      let container = Drifting()
      // The first build makes the slot; the second takes the short path.
      _ = container.number
      _ = container.number
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "Type mismatch resolving Drifting.number: expected Swift.Int, but it produces Swift.String from its factory"
      ))
  }
}

/// Counts the builds and requests an observed container reports.
final class TransientEvents: ResolutionObserver {
  private let builtCount = Counter()
  private let requestCount = Counter()
  var builds: Int { builtCount.count }
  var requests: Int { requestCount.count }
  func resolution(_ event: ResolutionEvent) {
    switch event.kind {
    case .built: builtCount.increment()
    case .requested: requestCount.increment()
    default: break
    }
  }
}
