import Forge
import Foundation
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

/// What a nested key path reaches through: a singleton holding a network.
final class NetworkUser: Sendable {
  let net: Service
  init(net: Service) { self.net = net }
}

final class MisdirectionContainer: Container, @unchecked Sendable {
  var network: Service { provide(.singleton) { Service("real network") } }
  var service: NetworkUser { provide(.singleton) { NetworkUser(net: self.network) } }
  var sum: Int { provide(key: "a") { 1 } + provide(key: "b") { 2 } }
  var forwarded: Service { TestContainer().singleton }
}

/// Says on (unbuffered) standard error when its `service` is built.
final class LoudContainer: Container, @unchecked Sendable {
  var network: Service { provide(.singleton) { Service("real") } }
  var service: NetworkUser {
    provide(.singleton) {
      FileHandle.standardError.write(Data("service built\n".utf8))
      return NetworkUser(net: self.network)
    }
  }
}

final class FunctionKeyContainer: Container, @unchecked Sendable {
  func sharedAcrossArguments(id: Int) -> Service { provide(.cached) { Service("item \(id)") } }
  func keyedPerArgument(id: Int) -> Service { provide(.cached, key: "item-\(id)") { Service("item \(id)") } }
  func transientPerCall(id: Int) -> Service { provide { Service("item \(id)") } }
  func withoutParameters() -> Service { provide(.singleton) { Service("only") } }
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
    #expect(stderr.contains("Forge: [Forge.unimplemented] unimplemented dependency"))
    #expect(stderr.contains("Chain: ProxyContainer.search → ProxyContainer.analytics."))
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

  @Test("overriding a nested key path stops before anything is built, saying what can be overridden (issue 11)")
  func overrideNestedKeyPath() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      MisdirectionContainer().override(\.service.net) { Service("mock") }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("Cannot override a MisdirectionContainer key path of type ForgeTests.Service"))
    #expect(stderr.contains("resolves service (ForgeTests.NetworkUser) first"))
    #expect(stderr.contains("Only a property that calls provide(...) once"))
  }

  @Test("a nested key path stops before the singleton it reads through is built")
  func nestedKeyPathBuildsNothing() async {
    // In a child process, so the stop can be observed: nothing written by
    // the singleton's factory (to unbuffered standard error) means it never ran.
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      LoudContainer().override(\.service.net) { Service("mock") }
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("Cannot override a LoudContainer key path"))
    #expect(!beforeBacktrace(output).contains("service built"))
  }

  @Test("overriding a property that calls provide twice stops at its first resolution, before it returns")
  func overrideTwoProvides() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = MisdirectionContainer()
      container.override(\.sum) { 100 }
      FileHandle.standardError.write(Data("installed\n".utf8))
      let sum = container.sum
      FileHandle.standardError.write(Data("read \(sum)\n".utf8))
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("installed"))
    #expect(stderr.contains("the property resolves b (Swift.Int) after its own dependency"))
    #expect(!beforeBacktrace(stderr).contains("read "), "the half-overridden value was returned")
  }

  @Test("overriding a property that forwards to another container stops with a message")
  func overrideForwarding() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      MisdirectionContainer().override(\.forwarded) { Service("mock") }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("resolves singleton (ForgeTests.Service) in another container"))
  }

  @Test("withOverrides stops the same way")
  func withOverridesNested() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = MisdirectionContainer()
      container.withOverrides {
        $0.override(\.service.net) { Service("mock") }
      } run: {
      }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("Cannot override a MisdirectionContainer key path"))
  }

  @Test("an override whose factory resolves other properties is still a plain override")
  func overrideFactoryResolves() {
    let container = MisdirectionContainer()
    // Unowned: the container keeps the override, which must not keep it.
    container.override(\.service) { [unowned container] in NetworkUser(net: container.network) }
    #expect(container.service.net.label == "real network")
  }

  @Test("a kept provide keyed by a function with parameters stops, saying how to key it (issue 11)")
  func functionKey() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = FunctionKeyContainer().sharedAcrossArguments(id: 1)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "FunctionKeyContainer.sharedAcrossArguments(id:) is a .cached dependency declared in a function with parameters"
      ))
    #expect(stderr.contains("provide(.cached, key: \"sharedAcrossArguments-\\(id)\")"))
  }

  @Test("keyed per argument, transient, or without parameters, a function's provide works")
  func functionKeysThatWork() {
    let container = FunctionKeyContainer()
    #expect(container.keyedPerArgument(id: 1).label == "item 1")
    #expect(container.keyedPerArgument(id: 2).label == "item 2")
    #expect(container.keyedPerArgument(id: 1) === container.keyedPerArgument(id: 1))
    #expect(container.transientPerCall(id: 3).label == "item 3")
    #expect(container.withoutParameters() === container.withoutParameters())
  }
}
