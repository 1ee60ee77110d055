import ForgeInject
@_exported import ForgeTestSupport

protocol NetworkServiceProtocol: Sendable { var id: Int { get } }
final class NetworkService: NetworkServiceProtocol {
  let id: Int
  init(id: Int = 0) { self.id = id }
}

protocol Serviceable: AnyObject, Sendable { func teardown() }
final class TeardownService: Serviceable {
  func teardown() {}
}
final class OtherTeardownService: Serviceable {
  func teardown() {}
}

final class Widget: Sendable {
  let label: String
  init(_ label: String = "widget") { self.label = label }
}

struct BuilderFailure: Error, Equatable {}
