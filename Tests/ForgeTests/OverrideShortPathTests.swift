import Forge
import ForgeTestSupport
import Testing

// `provide` serves an override before it sets up the general path (a
// container-wide override, or one in the task's `withOverrides` scope). The
// engine's override factory is typed by the property: these read values of
// every shape through that path, where a factory taken for the wrong type
// would hand back a wrong value (release) or stop (debug).

struct Point: Equatable, Sendable {
  var x: Double
  var y: Double
  var label: String
}

final class ShapesContainer: Container, @unchecked Sendable {
  let builds = Counter()

  var number: Int {
    provide(.singleton) {
      self.builds.increment()
      return 1
    }
  }
  var text: String {
    provide(.cached) {
      self.builds.increment()
      return "real"
    }
  }
  var maybe: Int? {
    provide(.singleton) {
      self.builds.increment()
      return 5
    }
  }
  var point: Point {
    provide {
      self.builds.increment()
      return Point(x: 1, y: 2, label: "real")
    }
  }
  var greeting: any Greeting {
    provide(.singleton) {
      self.builds.increment()
      return Hello()
    }
  }
  var sum: Int { provide { self.number + (self.maybe ?? 0) } }
  var previewed: Service {
    provide(.singleton) {
      Service("real")
    } preview: {
      Service("preview")
    }
  }
}

@Suite("Overrides served before the general path", .timeLimit(.minutes(1)))
struct OverrideShortPathTests {
  let container = ShapesContainer()

  @Test("a container-wide override serves values of every shape, read twice, and never runs the factory")
  func containerWide() {
    container.override(\.number) { 42 }
    container.override(\.text) { "mock" }
    container.override(\.maybe) { nil }
    container.override(\.point) { Point(x: -1, y: 0.5, label: "mock") }
    container.override(\.greeting) { Mocked() }
    for _ in 0..<2 {
      #expect(container.number == 42)
      #expect(container.text == "mock")
      #expect(container.maybe == nil)
      #expect(container.point == Point(x: -1, y: 0.5, label: "mock"))
      #expect(container.greeting.text == "mock")
      #expect(container.sum == 42)
    }
    #expect(container.builds.count == 0)
    container.removeOverride(for: \.number)
    container.removeOverride(for: \.maybe)
    #expect(container.number == 1)
    #expect(container.sum == 6)
  }

  @Test("an override in a scope serves values of every shape, after real instances were built")
  func scoped() {
    #expect(container.number == 1)
    #expect(container.point.label == "real")
    let builds = container.builds.count
    container.withOverrides {
      $0.override(\.number) { 7 }
      $0.override(\.maybe) { 3 }
      $0.override(\.point) { Point(x: 3, y: 4, label: "scoped") }
      $0.override(\.greeting) { Mocked() }
    } run: {
      for _ in 0..<2 {
        #expect(container.number == 7)
        #expect(container.maybe == 3)
        #expect(container.point == Point(x: 3, y: 4, label: "scoped"))
        #expect(container.greeting.text == "mock")
        #expect(container.sum == 10)
      }
    }
    #expect(container.builds.count == builds)
    #expect(container.number == 1)
    #expect(container.sum == 6)
  }
}

@Suite("Reads of a container with overrides elsewhere", .timeLimit(.minutes(1)))
struct OverriddenElsewhereTests {
  let container = ShapesContainer()

  @Test("a kept dependency that is not overridden keeps its instance while another one is overridden")
  func keptBesideAnOverride() {
    #expect(container.greeting.text == "hello")
    #expect(container.number == 1)
    container.override(\.text) { "mock" }
    #expect(container.text == "mock")
    for _ in 0..<2 {
      #expect(container.number == 1)
      #expect(container.greeting.text == "hello")
    }
    #expect(container.builds.count == 2)
    // An override installed now wins at once, and its removal brings the
    // kept instance back.
    container.override(\.number) { 9 }
    #expect(container.number == 9)
    container.removeOverride(for: \.number)
    #expect(container.number == 1)
    #expect(container.builds.count == 2)
  }

  @Test("a kept dependency not built yet is built once, while another one is overridden")
  func builtBesideAnOverride() {
    container.override(\.text) { "mock" }
    #expect(container.text == "mock")
    #expect(container.maybe == 5)
    #expect(container.maybe == 5)
    #expect(container.builds.count == 1)
    container.resetCached()
    container.resetAll()
    #expect(container.text == "real")
    #expect(container.maybe == 5)
    #expect(container.builds.count == 3)
  }

  @Test("in preview mode, a kept instance gives way to its preview while another dependency is overridden")
  func previewBesideAnOverride() {
    // Found by the reference model: the published instance was served
    // before the preview.
    #expect(container.previewed.label == "real")
    container.override(\.text) { "mock" }
    // The override's first read ends its key's discovery, which holds the
    // container on the general path until then.
    #expect(container.text == "mock")
    Forge.withPreviewMode { #expect(container.previewed.label == "preview") }
    #expect(container.previewed.label == "real")
  }

  @Test("in preview mode inside a scope, a kept instance gives way to its preview; the scope's override beats it")
  func previewInsideAScope() {
    #expect(container.previewed.label == "real")
    #expect(container.text == "real")
    container.withOverrides {
      $0.override(\.text) { "scoped" }
    } run: {
      // Read in the scope before preview mode: the published instance.
      #expect(container.previewed.label == "real")
      Forge.withPreviewMode {
        #expect(container.previewed.label == "preview")
        #expect(container.text == "scoped")
      }
      #expect(container.previewed.label == "real")
    }
    #expect(container.text == "real")
  }

  @Test(
    "in a scope that overrides something else, and beside another task's scope, kept values of every shape are the container's"
  )
  func keptValuesInAndBesideAScope() {
    #expect(container.number == 1)
    #expect(container.text == "real")
    #expect(container.maybe == 5)
    #expect(container.greeting is Hello)
    #expect(container.builds.count == 4)
    container.withOverrides {
      $0.override(\.point) { Point(x: 0, y: 0, label: "scoped") }
    } run: {
      #expect(container.number == 1)
      #expect(container.text == "real")
      #expect(container.maybe == 5)
      #expect(container.greeting is Hello)
      #expect(container.point.label == "scoped")
    }
    // Beside a scope that another thread holds open: a real thread, so that
    // its wait blocks no thread of the cooperative pool.
    let entered = Signal()
    let leave = Signal()
    let scoped = Counter()
    let other = RealThread { [container] in
      container.withOverrides {
        $0.override(\.number) { 7 }
      } run: {
        if container.number == 7 { scoped.increment() }
        entered.raise()
        _ = leave.wait()
      }
    }
    #expect(entered.wait())
    #expect(container.number == 1)
    #expect(container.text == "real")
    #expect(container.maybe == 5)
    #expect(container.sum == 6)
    leave.raise()
    other.join()
    #expect(scoped.count == 1)
    #expect(container.builds.count == 4)
  }

  @Test("an observer added while an override is installed still sees every read")
  func observedBesideAnOverride() {
    container.override(\.text) { "mock" }
    #expect(container.text == "mock")
    _ = container.number
    let events = TransientEvents()
    let token = container.addObserver(events)
    _ = container.number
    _ = container.text
    container.removeObserver(token)
    #expect(events.requests == 2)
    #expect(container.number == 1)
  }
}
