import Forge
import Testing

final class InjectionTestContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = InjectionTestContainer()
  let reads = Counter()
  var service: Service {
    provide(.transient) {
      self.reads.increment()
      return Service("shared")
    }
  }
}

@Suite("ContainerInject")
struct InjectTests {
  typealias Inject<T> = ContainerInject<InjectionTestContainer, T>

  final class Consumer {
    @Inject(\.service) var service
  }

  @Test("resolves lazily on first access and keeps the instance")
  func lazyAndKept() {
    let container = TestContainer()
    final class Holder {
      @ContainerInject<TestContainer, Service> var service: Service
      init(_ container: TestContainer) { _service = ContainerInject(container, \.transient) }
    }
    let holder = Holder(container)
    container.override(\.transient) { Service("set after the wrapper was created") }
    let first = holder.service
    #expect(first.label == "set after the wrapper was created")
    #expect(holder.service === first)
  }

  @Test("a module's Inject alias resolves from its shared container")
  func moduleAlias() {
    let consumer = Consumer()
    let before = InjectionTestContainer.shared.reads.count
    #expect(consumer.service.label == "shared")
    _ = consumer.service
    #expect(InjectionTestContainer.shared.reads.count == before + 1)
  }

  @Test("ContainerInject<Container, T> reads Forge.defaultContainer")
  func defaultContainer() {
    #expect(Forge.defaultContainer === AppContainer.shared)
    final class Consumer {
      @ContainerInject<Container, Service>(\.forgeTestsServiceOnContainer) var service
    }
    #expect(Consumer().service === AppContainer.shared.forgeTestsService)
  }

  @Test("ContainerInject<Container, T> stops with a message when the default container is nil")
  func defaultContainerNil() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      Forge.defaultContainer = nil
      final class Consumer {
        @ContainerInject<Container, Service>(\.forgeTestsServiceOnContainer) var service
      }
      _ = Consumer()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("reads Forge.defaultContainer, which is nil"))
  }
}

extension Container {
  /// Reaches AppContainer's dependency through the base type, for the
  /// `ContainerInject<Container, T>` initialiser.
  var forgeTestsServiceOnContainer: Service { (self as! AppContainer).forgeTestsService }
}

/// Outside `InjectTests`, whose module alias shadows the built-in `Inject`.
@Suite("Inject")
struct BuiltInInjectTests {
  final class Consumer {
    @Inject(\.forgeTestsService) var service
  }

  @Test("the built-in Inject uses AppContainer.shared")
  func builtInInject() {
    #expect(Consumer().service === AppContainer.shared.forgeTestsService)
  }
}
