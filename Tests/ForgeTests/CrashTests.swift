import Forge
import Testing

final class CyclicContainer: Container, @unchecked Sendable {
  var first: [Any] { provide(.singleton) { [self.second] } }
  var second: [Any] { provide { [self.third] } }
  var third: [Any] { provide(.cached) { [self.first] } }
}

final class ProxyContainer: Container, @unchecked Sendable {
  var analytics: Service { provide(.singleton) { unimplemented("analytics") } }
  var search: [Service] { provide(.singleton) { [self.analytics] } }
}

@Suite("Crash messages")
struct CrashTests {
  @Test("a cycle stops with a message naming every property on the path")
  func cycle() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = CyclicContainer().first
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "Dependency cycle: CyclicContainer.first → CyclicContainer.second → CyclicContainer.third → CyclicContainer.first."
      ))
    #expect(stderr.contains("To fix it"))
  }

  @Test("unimplemented stops with a message naming the dependency, its type, and saying to override it")
  func unimplementedMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = ProxyContainer().search
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("unimplemented dependency \"analytics\" (ForgeTests.Service) was resolved"))
    #expect(stderr.contains("Requested by: ProxyContainer.search → ProxyContainer.analytics."))
    #expect(stderr.contains("override \"analytics\" before it is resolved"))
  }

  @Test("an unimplemented dependency that was overridden is never reached")
  func unimplementedOverridden() {
    let container = ProxyContainer()
    container.override(\.analytics) { Service("wired") }
    #expect(container.search[0].label == "wired")
  }

  @Test("a factory returning the wrong type stops with a message naming both types")
  func wrongType() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Wrong: Container, @unchecked Sendable {
        var number: Int { provide { "not a number" } }
      }
      _ = Wrong().number
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("Type mismatch resolving Wrong.number: expected Swift.Int, but it produces Swift.String"))
  }

  @Test("overriding a key path that does not call provide stops with a message")
  func overrideNonProvide() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Plain: Container, @unchecked Sendable {
        var constant: Int { 1 }
      }
      Plain().override(\.constant) { 2 }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("reading it did not call provide(...) on this container"))
  }
}
