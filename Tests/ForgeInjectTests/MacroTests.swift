import ForgeInject
import Testing

// The macros, expanded and compiled for real.

protocol AnalyticsServiceProtocol: Sendable { func track(_ event: String) }
final class AnalyticsService: AnalyticsServiceProtocol {
  func track(_ event: String) {}
}

@Injectable
final class InjectedViewModel {
  let networkService: NetworkServiceProtocol
  let widget: Widget
  var taps = 0
}

@Injectable
struct InjectedValue {
  let widget: Widget
}

@Injectable
actor InjectedActor {
  let widget: Widget
  func label() -> String { widget.label }
}

@Injectable
final class NothingToInject {}

@Injectable
final class Coordinator {
  let widget: Widget
  @Inject var analytics: AnalyticsServiceProtocol
  @Inject(lazy: false) var network: NetworkServiceProtocol
}

final class ExpressionUser {
  let network: NetworkServiceProtocol = #inject()
  lazy var widget: Widget = #inject()
}

@Suite("The macros, compiled", .timeLimit(.minutes(1)))
struct MacroTests {
  func makeContainer(builds: Counter = Counter()) -> ForgeContainer {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in NetworkService(id: 42) as NetworkServiceProtocol }
    container.register(with: .transient) { _ in
      builds.increment()
      return Widget("resolved")
    }
    container.register(with: .singleton) { _ in AnalyticsService() as AnalyticsServiceProtocol }
    return container
  }

  @Test("@Injectable resolves defaults from the shared container, and tests can pass mocks")
  func injectable() async {
    await ForgeContainer.withShared(makeContainer()) {
      let production = InjectedViewModel()
      #expect(production.networkService.id == 42)
      #expect(production.widget.label == "resolved")
      let test = InjectedViewModel(networkService: NetworkService(id: 1), widget: Widget("mock"))
      #expect(test.networkService.id == 1)
      #expect(InjectedValue().widget.label == "resolved")
      #expect(await InjectedActor().label() == "resolved")
      _ = NothingToInject()
    }
  }

  @Test("@Inject resolves once per owner, even for a transient registration")
  func injectLazy() {
    let builds = Counter()
    ForgeContainer.withShared(makeContainer(builds: builds)) {
      let coordinator = Coordinator(widget: Widget("passed"))
      #expect(builds.count == 0)
      let first = coordinator.analytics
      #expect(coordinator.analytics as AnyObject === first as AnyObject)
      #expect(coordinator.network.id == 42)
    }
  }

  @Test("@Inject(lazy: false) resolves while the owner initialises")
  func injectEager() {
    let container = ForgeContainer()
    let builds = Counter()
    container.register(with: .transient) { _ in
      builds.increment()
      return NetworkService() as NetworkServiceProtocol
    }
    container.register(with: .transient) { _ in AnalyticsService() as AnalyticsServiceProtocol }
    ForgeContainer.withShared(container) {
      let coordinator = Coordinator(widget: Widget())
      #expect(builds.count == 1)
      _ = coordinator.network
      _ = coordinator.network
      #expect(builds.count == 1)
    }
  }

  @Test("concurrent first reads of an @Inject property resolve once")
  func injectConcurrent() async {
    let container = makeContainer()
    let builds = Counter()
    container.register(with: .transient) { _ in
      builds.increment()
      return AnalyticsService() as AnalyticsServiceProtocol
    }
    await ForgeContainer.withShared(container) {
      for _ in 0..<10 {
        let coordinator = UncheckedBox(Coordinator(widget: Widget()))
        // Child tasks inherit the task-local container and run on the
        // cooperative pool's threads.
        let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
          for _ in 0..<16 {
            group.addTask { ObjectIdentifier(coordinator.value.analytics as AnyObject) }
          }
          return await group.reduce(into: Set()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
      }
    }
    #expect(builds.count == 10)
  }

  @Test("#inject() resolves the expected type in a let and in a lazy var")
  func expression() {
    ForgeContainer.withShared(makeContainer()) {
      let user = ExpressionUser()
      #expect(user.network.id == 42)
      #expect(user.widget.label == "resolved")
    }
  }
}

/// Hands a non-Sendable reference to other threads in a test that
/// synchronises on its own.
struct UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
