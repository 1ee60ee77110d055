import SwiftPod
import Testing

// Seed 004's samples, as written, with the types they mention filled in.
// (`fetchData` is `async throws` in the seed's class but not its protocol;
// here both are synchronous so the sample compiles.)

protocol HttpClient: Sendable {
  func get(_ path: String) -> [String]
}

final class StubHttpClient: HttpClient {
  func get(_ path: String) -> [String] { ["data from \(path)"] }
}

let httpClientProvider = Provider<HttpClient> { _ in StubHttpClient() }

// Define a `Provider` for the `DataService`.
// A `Provider` is a SwiftPod thing.
// It's a thing which knows how to build your types.
let dataServiceProvider = Provider<DataService> { pod in
  return RemoteDataService(
    httpClient: pod.resolve(httpClientProvider)
  )
}

protocol DataService {
  func fetchData() -> [String]
}

class RemoteDataService: DataService {
  private let httpClient: HttpClient

  init(httpClient: HttpClient) {
    self.httpClient = httpClient
  }

  func fetchData() -> [String] {
    return httpClient.get("/some/endpoint")
  }
}

class MyCoolService: @unchecked Sendable {
  // @unchecked: no state; non-final so that the sample's mock can subclass it.
  func name() -> String { "real" }
}
final class MockMyCoolService: MyCoolService, @unchecked Sendable {
  override func name() -> String { "mock" }
}

let myCoolServiceProvider = Provider { _ in
  return MyCoolService()
}

// Will have this type `Provider<Int>`
let aNumberProvider = Provider { _ in
  return 123
}

// Will have this type `Provider<any CurrentUserServiceProtocol>`
let currentUserServiceProvider = Provider<CurrentUserServiceProtocol> { _ in
  return CurrentUserService()
}

protocol CurrentUserServiceProtocol {
  func username() -> String
}

class CurrentUserService: CurrentUserServiceProtocol {
  func username() -> String {
    return "Jane Doe"
  }
}

final class SomeChildSignUp: Sendable {}

enum Seed004 {
  final class SignUpScope: ProviderScope {
    let children: [any ProviderScope] = [SomeChildSignUpScope()]
  }

  final class SomeChildSignUpScope: ProviderScope {
    let children: [any ProviderScope] = []
  }

  static let someChildSignUpProvider = Provider(scope: SomeChildSignUpScope()) { _ in
    return SomeChildSignUp()
  }
}

let myAppTitleProvider = Provider { _ in
  return "My cool app"
}

let myAppDescriptionProvider = Provider { _ in
  return "This is a really exciting and cool app"
}

@Suite("Seed 004: SwiftPod")
struct SeedSampleTests {
  @Test("quick example")
  func quickExample() {
    let pod = SwiftPod()
    let dataService = pod.resolve(dataServiceProvider)
    #expect(dataService.fetchData() == ["data from /some/endpoint"])
  }

  @Test("types of providers")
  func providerTypes() {
    let pod = SwiftPod()
    let number: Int = pod.resolve(aNumberProvider)
    #expect(number == 123)
    #expect(pod.resolve(currentUserServiceProvider).username() == "Jane Doe")
    let string1 = pod.resolve(myAppTitleProvider)  // <-- "My cool app"
    let string2 = pod.resolve(myAppDescriptionProvider)  // <-- "This is a really exciting and cool app"
    #expect(string1 == "My cool app")
    #expect(string2 == "This is a really exciting and cool app")
  }

  @Test("layered scopes")
  func layeredScopes() {
    let pod = SwiftPod()
    let first = pod.resolve(Seed004.someChildSignUpProvider)
    // Clears all cached instances for SomeChildSignUpScope and SignUpScope
    pod.clearCachedInstances(forScope: Seed004.SignUpScope())
    let second = pod.resolve(Seed004.someChildSignUpProvider)
    #expect(first !== second)
    // Clears all cached instances for SomeChildSignUpScope
    pod.clearCachedInstances(forScope: Seed004.SomeChildSignUpScope())
    #expect(pod.resolve(Seed004.someChildSignUpProvider) !== second)
  }

  @Test("overriding providers")
  func overriding() {
    let pod = SwiftPod()
    let real = pod.resolve(myCoolServiceProvider)
    pod.overrideProvider(myCoolServiceProvider) { _ in
      return MockMyCoolService()
    }
    #expect(pod.resolve(myCoolServiceProvider).name() == "mock")
    pod.removeOverrideProvider(myCoolServiceProvider)
    #expect(pod.resolve(myCoolServiceProvider) === real)
    let protocolPod = SwiftPod()
    protocolPod.overrideProvider(currentUserServiceProvider) { _ in MockCurrentUserService() }
    #expect(protocolPod.resolve(currentUserServiceProvider).username() == "Mock User")
  }
}

final class MockCurrentUserService: CurrentUserServiceProtocol {
  func username() -> String { "Mock User" }
}
