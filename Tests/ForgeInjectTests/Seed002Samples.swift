import ForgeInject
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Seed 002 ("Modular Registration"), as written, with its types filled in.

protocol URLSessionProtocol {}
extension URLSession: URLSessionProtocol {}

enum Seed002 {
  protocol NetworkServiceProtocol {}
  final class NetworkService: NetworkServiceProtocol {
    let session: URLSessionProtocol
    init(session: URLSessionProtocol) { self.session = session }
  }
  protocol UserRepositoryProtocol {}
  final class UserRepository: UserRepositoryProtocol {
    init(networkService: NetworkServiceProtocol) {}
  }
  protocol UserServiceProtocol {}
  final class UserService: UserServiceProtocol {
    init(repository: UserRepositoryProtocol) {}
  }
  protocol AuthServiceProtocol {}
  final class AuthService: AuthServiceProtocol {
    init(networkService: NetworkServiceProtocol) {}
  }

  struct AuthModule: ForgeRegisterProtocol {
    func registerDependencies(in container: ForgeContainerProtocol) {
      container.register(with: .singleton) { container in
        AuthService(networkService: try container.resolve()) as AuthServiceProtocol
      }
    }
  }

  // NetworkModule.swift
  struct NetworkModule: ForgeRegisterProtocol {
    func registerDependencies(in container: ForgeContainerProtocol) {
      container.register(with: .singleton) { _ in
        URLSession.shared as URLSessionProtocol
      }

      container.register(with: .singleton) { container in
        let session: URLSessionProtocol = try container.resolve()
        return NetworkService(session: session) as NetworkServiceProtocol
      }
    }
  }

  // UserModule.swift
  struct UserModule: ForgeRegisterProtocol {
    func registerDependencies(in container: ForgeContainerProtocol) {
      container.register(with: .singleton) { container in
        let networkService: NetworkServiceProtocol = try container.resolve()
        return UserRepository(networkService: networkService) as UserRepositoryProtocol
      }

      container.register(with: .transient) { container in
        let repository: UserRepositoryProtocol = try container.resolve()
        return UserService(repository: repository) as UserServiceProtocol
      }
    }
  }

  // AppDependencies.swift
  struct AppDependencies: ForgeRegisterProtocol {
    func registerDependencies(in container: ForgeContainerProtocol) {
      NetworkModule().registerDependencies(in: container)
      AuthModule().registerDependencies(in: container)
      UserModule().registerDependencies(in: container)
    }
  }

  @Injectable
  final class ProfileViewModel {
    let userService: UserServiceProtocol
    let authService: AuthServiceProtocol
  }
}

@Suite("Seed 002: modular registration")
struct Seed002Tests {
  @Test("the root composition registers every module and @Injectable picks them up")
  func composition() throws {
    // TaskFlowApp.init(), without SwiftUI: a task-local shared container
    // stands in for `ForgeContainer.shared = container` so tests stay isolated.
    let container = ForgeContainer()
    Seed002.AppDependencies().registerDependencies(in: container)
    let viewModel = ForgeContainer.withShared(container) { Seed002.ProfileViewModel() }
    #expect(viewModel.userService is Seed002.UserService)
    #expect(viewModel.authService is Seed002.AuthService)
    let network: Seed002.NetworkServiceProtocol = try container.resolve()
    #expect((network as? Seed002.NetworkService)?.session as AnyObject === URLSession.shared)
  }

  @Test("the app entry point sets the shared container once")
  func entryPoint() async {
    await #expect(processExitsWith: .success) {
      // TaskFlowApp.init()
      let container = ForgeContainer()
      Seed002.AppDependencies().registerDependencies(in: container)
      ForgeContainer.shared = container
      _ = Seed002.ProfileViewModel()
    }
  }
}
