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

/// The distinct objects seen across threads. A class around its Mutex: a
/// Mutex captured directly by a @Sendable closure is accessed through the
/// closure's box, which ThreadSanitizer reports.
final class IdentitySet: Sendable {
  private let ids = Mutex<Set<ObjectIdentifier>>([])
  func insert(_ object: AnyObject) { ids.withLock { _ = $0.insert(ObjectIdentifier(object)) } }
  var count: Int { ids.withLock { $0.count } }
}

struct BuilderFailure: Error, Equatable {}
