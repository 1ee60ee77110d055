import ForgeInject
import Testing

// Seed 001 ("Registration", "Retain Policies"), its samples as written, with
// the types they mention filled in. Each sample's `container` is the suite's.

enum Seed001 {
  protocol NetworkServiceProtocol: Sendable {}
  final class NetworkService: NetworkServiceProtocol {}
  protocol UserRepositoryProtocol: Sendable { var networkService: NetworkServiceProtocol { get } }
  final class UserRepository: UserRepositoryProtocol {
    let networkService: NetworkServiceProtocol
    init(networkService: NetworkServiceProtocol) { self.networkService = networkService }
  }
  final class TaskService {}
  protocol TaskServiceProtocol {}
  protocol Serviceable { func teardown() }
  final class SessionService: Serviceable {
    let tornDown = Mutex(false)
    func teardown() { tornDown.withLock { $0 = true } }
  }
  protocol AnalyticsServiceProtocol: AnyObject {}
  final class AnalyticsService: AnalyticsServiceProtocol {}
  final class FormValidator {}
  protocol FormValidatorProtocol {}
  final class FormValidatorImpl: FormValidatorProtocol {}
  protocol DatabaseServiceProtocol: AnyObject {}
  final class DatabaseService: DatabaseServiceProtocol {}
  protocol ImageCacheProtocol: AnyObject {}
  final class ImageCache: ImageCacheProtocol {}
  protocol ProtectedDataObserving: Sendable {}
  @MainActor final class ProtectedDataObserver: ProtectedDataObserving {
    init() { MainActor.assertIsolated() }
  }

  // Consume — the property's type drives resolution
  enum ProtocolSample {
    @Injectable
    final class ViewModel {
      let networkService: NetworkServiceProtocol
    }
  }

  // Consume — with @Injectable (concrete, not recommended)
  enum Concrete {
    @Injectable
    final class ViewModel {
      let networkService: NetworkService
    }
  }

  // AppDependencies.swift (Mixing Policies)
  struct AppDependencies: ForgeRegisterProtocol {
    func registerDependencies(in container: ForgeContainerProtocol) {
      // Singleton — lives forever
      container.register(with: .singleton) { _ in
        NetworkService() as NetworkServiceProtocol
      }

      // Transient — new instance each time
      container.register(with: .transient) { _ in
        FormValidatorImpl() as FormValidatorProtocol
      }

      // Weak — shared while held
      container.register(with: .weak) { _ in
        ImageCache() as ImageCacheProtocol
      }
    }
  }
}

@Suite("Seed 001: registration and retain policies")
struct Seed001Tests {
  let container = ForgeContainer()

  @Test("concrete registration, consumed with @Injectable")
  func concrete() {
    container.register(with: .singleton) { _ in
      Seed001.NetworkService()
    }
    ForgeContainer.withShared(container) {
      #expect(Seed001.Concrete.ViewModel().networkService === Seed001.Concrete.ViewModel().networkService)
    }
  }

  @Test("protocol registration, consumed with @Injectable")
  func protocolRegistration() {
    container.register(with: .singleton) { _ in
      Seed001.NetworkService() as Seed001.NetworkServiceProtocol
    }
    ForgeContainer.withShared(container) {
      #expect(Seed001.ProtocolSample.ViewModel().networkService is Seed001.NetworkService)
    }
  }

  @Test("nested dependencies, in either order")
  func nested() throws {
    container.register(with: .singleton) { container in
      let networkService: Seed001.NetworkServiceProtocol = try container.resolve()
      return Seed001.UserRepository(networkService: networkService) as Seed001.UserRepositoryProtocol
    }
    container.register(with: .singleton) { _ in
      Seed001.NetworkService() as Seed001.NetworkServiceProtocol
    }
    let repository: Seed001.UserRepositoryProtocol = try container.resolve()
    #expect(
      repository.networkService as AnyObject === (try container.resolve() as Seed001.NetworkServiceProtocol)
        as AnyObject)
  }

  @Test("type matching: registered as a protocol, the concrete type is missing and @Injectable stops with a message")
  func typeMatching() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = ForgeContainer()
      // Registered as protocol
      container.register(with: .singleton) { _ in
        Seed001.NetworkService() as Seed001.NetworkServiceProtocol
      }
      ForgeContainer.shared = container
      // Will crash at runtime — registered type is NetworkServiceProtocol, not NetworkService
      _ = Seed001.Concrete.ViewModel()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("ViewModel.networkService needs ForgeInjectTests.Seed001.NetworkService"))
    #expect(stderr.contains("Registered types: ForgeInjectTests.Seed001.NetworkServiceProtocol."))
  }

  @Test("@MainActor registration builds eagerly")
  @MainActor
  func mainActor() throws {
    // For @MainActor-isolated dependencies — instance is created eagerly at registration time.
    // Requires T: Sendable since the instance crosses isolation boundaries at resolve time.
    @MainActor
    func setupContainer() {
      container.register(
        with: .singleton,
        mainActorBuilder: { _ in
          Seed001.ProtectedDataObserver() as Seed001.ProtectedDataObserving
        })
    }
    setupContainer()
    let observer: Seed001.ProtectedDataObserving = try container.resolve()
    #expect(observer is Seed001.ProtectedDataObserver)
  }

  @Test("resolve by explicit type")
  func explicitType() throws {
    container.register(with: .singleton) { _ in Seed001.TaskService() }
    // Resolve by explicit type instead of type inference
    let service: Seed001.TaskService = try container.resolveWithType(Seed001.TaskService.self)
    #expect(service === (try container.resolve() as Seed001.TaskService))
  }

  @Test("resolve all conforming instances")
  func resolveAll() throws {
    container.register(with: .singleton) { _ in Seed001.SessionService() }
    let session: Seed001.SessionService = try container.resolve()
    let allServices = container.resolveAll(conforming: Seed001.Serviceable.self)

    for service in allServices {
      service.teardown()
    }
    #expect(allServices.count == 1)
    #expect(session.tornDown.withLock { $0 })
  }

  @Test("resetting the container on logout")
  func logout() throws {
    container.register(with: .singleton) { _ in Seed001.AnalyticsService() as Seed001.AnalyticsServiceProtocol }
    container.register(with: .singleton) { _ in Seed001.DatabaseService() as Seed001.DatabaseServiceProtocol }
    let analytics: Seed001.AnalyticsServiceProtocol = try container.resolve()
    let database: Seed001.DatabaseServiceProtocol = try container.resolve()

    func handleLogout() {
      // Keep analytics alive, reset everything else
      container.reset(preserving: [Seed001.AnalyticsServiceProtocol.self])
    }
    handleLogout()
    #expect(try container.resolve() as Seed001.AnalyticsServiceProtocol === analytics)
    #expect(try container.resolve() as Seed001.DatabaseServiceProtocol !== database)
  }

  @Test("catching errors")
  func catching() {
    var printed: [String] = []
    func print(_ line: String) { printed.append(line) }
    // When calling resolve() directly, errors are thrown and can be caught.
    do {
      let service: Seed001.TaskServiceProtocol = try container.resolve()
      _ = service
    } catch let error as ForgeContainerError {
      switch error {
      case .missingFactoryMethod(let type):
        print("No factory registered for \(type)")
      case .typeMismatch(let type):
        print("Factory exists but returned wrong type for \(type)")
      }
    } catch {}
    #expect(printed == ["No factory registered for ForgeInjectTests.Seed001.TaskServiceProtocol"])
  }

  @Test("retain policies and mixing them in AppDependencies")
  func policies() throws {
    // New instance every time the dependency is resolved
    container.register(with: .transient) { _ in
      Seed001.FormValidator()
    }
    // Single shared instance for the app's lifetime
    container.register(with: .singleton) { _ in
      Seed001.DatabaseService() as Seed001.DatabaseServiceProtocol
    }
    Seed001.AppDependencies().registerDependencies(in: container)
    #expect(try container.resolve() as Seed001.FormValidator !== container.resolve() as Seed001.FormValidator)
    #expect(
      try container.resolve() as Seed001.DatabaseServiceProtocol === container.resolve()
        as Seed001.DatabaseServiceProtocol)
    var cache: Seed001.ImageCacheProtocol? = try container.resolve() as Seed001.ImageCacheProtocol
    let identity = ObjectIdentifier(cache!)
    #expect(ObjectIdentifier(try container.resolve() as Seed001.ImageCacheProtocol) == identity)
    cache = nil
    #expect(container.resolveAll(conforming: Seed001.ImageCacheProtocol.self).isEmpty)
  }
}
