import DependencyFetcher
import Testing

// Seed 003's samples, as written, with the types they mention filled in
// (no UIKit here: the view controller is a plain class).

protocol Logger {
  func log(_ line: String)
}
protocol Database {
  func count() -> Int
}
class StdOutLogger: Logger {
  init() {}  // ...
  func log(_ line: String) {}
}
class CoreDataDatabase: Database {
  static func setup() -> CoreDataDatabase { CoreDataDatabase() }
  func count() -> Int { 1 }
}
final class MockLogger: Logger { func log(_ line: String) {} }
final class MockDatabase: Database { func count() -> Int { 0 } }

extension Service where T == Logger {
  static let logger = Service(StdOutLogger.init)
}
extension Service where T == Database {
  static let database = Service(CoreDataDatabase.setup)
}

struct Product: Equatable { let name: String }

final class APIEndpoint: Sendable {
  static let `default` = APIEndpoint()
  func getProducts(
    onSuccess: @escaping ([Product]) -> Void,
    onError: @escaping (Error) -> Void
  ) {
    onSuccess([Product(name: "real")])
  }
}

protocol APIEndpointProtocol {
  func getProducts(
    onSuccess: @escaping ([Product]) -> Void,
    onError: @escaping (Error) -> Void)
}
extension APIEndpoint: APIEndpointProtocol {}
extension Service where T == APIEndpointProtocol {
  static let apiEndpoint = Service(APIEndpoint.default)
}

class ViewController {
  var products: [Product] = []
  var fetcher = Fetcher.createDefault()
  private lazy var apiEndpoint = self.fetcher.fetch(.apiEndpoint)
  func viewDidLoad() {
    self.apiEndpoint.getProducts(
      onSuccess: { self.products = $0 },
      onError: { _ in })  // the seed elides the error handling
  }
}

class MockAPIEndpoint: APIEndpointProtocol {
  let testProducts: [Product] = [
    Product(name: "mock")
  ]
  func getProducts(
    onSuccess: @escaping ([Product]) -> Void,
    onError: @escaping (Error) -> Void
  ) {
    onSuccess(self.testProducts)
  }
}

@Suite("Seed 003: DependencyFetcher")
struct SeedSampleTests {
  @Test("fetch the dependencies in application code")
  func fetch() {
    let fetcher = Fetcher.createDefault()
    let logger = fetcher.fetch(.logger)  // logger has the type Logger
    let database = fetcher.fetch(.database)  // database has the type Database
    #expect(logger is StdOutLogger)
    #expect(database.count() == 1)
  }

  @Test("mock services in tests")
  func mocks() {
    let fetcher =
      Fetcher
      .create()
      .addOverride(for: Service.logger, instance: MockLogger())
      .addOverride(for: Service.database, instance: MockDatabase())
      .done()
    #expect(fetcher.fetch(.logger) is MockLogger)
    #expect(fetcher.fetch(.database).count() == 0)
  }

  @Test("factoring out hard-coded dependencies")
  func testPopulatingViewControllerWithProducts() {
    let vc = ViewController()
    let mock = MockAPIEndpoint()
    vc.fetcher =
      Fetcher
      .create()
      .addOverride(for: Service.apiEndpoint, instance: mock)
      .done()
    vc.viewDidLoad()
    #expect(vc.products == mock.testProducts)
  }

  @Test("the real endpoint without overrides")
  func realEndpoint() {
    let vc = ViewController()
    vc.viewDidLoad()
    #expect(vc.products == [Product(name: "real")])
  }
}
