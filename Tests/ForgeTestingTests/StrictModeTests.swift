import DependencyFetcher
import Forge
import ForgeInject
import ForgeTesting
import SwiftPod
import Testing

/// Records on standard error when its real factory runs.
final class NetworkContainer: Container, SharedContainer, @unchecked Sendable {
  static let shared = NetworkContainer()
  var network: [String] { provide(.singleton) { ["real network"] } }
  var clock: [String] { provide(.singleton) { ["real clock"] } }
  var api: [[String]] { provide(.cached) { [self.network, self.clock] } }
}

enum Remote {
  final class Network: Sendable {}
  final class Client: Sendable {
    let network: Network
    init(network: Network) { self.network = network }
  }
}

@Suite("ForgeTesting: strict mode", .timeLimit(.minutes(1)))
struct StrictModeTests {
  @Test(
    "a dependency the test overrides is fine; the others it names are not built",
    .isolated(NetworkContainer.shared, strict: .dependencies(["NetworkContainer.network"])) {
      $0.override(\.network) { ["mock network"] }
    })
  func overriddenIsFine() {
    #expect(NetworkContainer.shared.api == [["mock network"], ["real clock"]])
  }

  @Test("Forge: resolving a forbidden real factory stops with the chain, before the factory runs")
  func forgeStops() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      withIsolatedContainers(NetworkContainer.shared, strict: .dependencies(["NetworkContainer.network"])) {
        _ = NetworkContainer.shared.api
      }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "[Forge.strictMode] NetworkContainer.network was resolved with its real factory, which this test forbids. Chain: NetworkContainer.api → NetworkContainer.network."
      ))
    #expect(stderr.contains("To fix it, override NetworkContainer.network in the test"))
  }

  @Test("ForgeInject: every unoverridden registration is forbidden with .allUnoverridden, and the error is thrown")
  func forgeInjectThrows() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Remote.Network() }
    container.register { c in Remote.Client(network: try c.resolve()) }
    withIsolatedContainers(container, strict: .allUnoverridden) {
      #expect {
        _ = try container.resolve() as Remote.Client
      } throws: { error in
        String(describing: error).contains(
          "[Forge.strictMode] ForgeTestingTests.Remote.Client was resolved with its real factory")
      }
    }
    // Outside the strict test, the container works as usual.
    _ = try container.resolve() as Remote.Client
  }

  @Test("SwiftPod: an overridden provider is served; the strict mode applies to this test only")
  func swiftPod() {
    let pod = SwiftPod()
    let network = Provider("network") { _ in Remote.Network() }
    let client = Provider("client", scope: AlwaysCreateNewScope()) { pod in Remote.Client(network: pod.resolve(network))
    }
    pod.overrideProvider(network) { _ in Remote.Network() }
    pod.overrideProvider(client) { pod in Remote.Client(network: pod.resolve(network)) }
    withIsolatedContainers(pod, strict: .allUnoverridden) {
      _ = pod.resolve(client)
    }
    pod.removeOverrideProvider(client)
    _ = pod.resolve(client)
  }
}

/// A dependency declared `private`, as tests often declare their fakes.
private final class PrivateClock: Sendable {}
/// Unnamed: its name is its type and where it is declared.
let unnamedRemoteNetwork = Provider { _ in Remote.Network() }

@Suite("ForgeTesting: strict mode names", .timeLimit(.minutes(1)))
struct StrictModeNameTests {
  @Test("ForgeInject: a private type is named without its private context")
  func privateType() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in PrivateClock() }
    withIsolatedContainers(container, strict: .dependencies(["ForgeTestingTests.PrivateClock"])) {
      #expect {
        _ = try container.resolve() as PrivateClock
      } throws: { error in
        String(describing: error).contains(
          "[Forge.strictMode] ForgeTestingTests.PrivateClock was resolved with its real factory")
      }
    }
  }

  @Test("SwiftPod: an unnamed provider is forbidden by its type's name, or by its full name")
  func unnamedProvider() async {
    #expect(unnamedRemoteNetwork.name.hasPrefix("Provider<ForgeTestingTests.Remote.Network> (StrictModeTests.swift:"))
    let byType = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let pod = SwiftPod()
      withIsolatedContainers(pod, strict: .dependencies(["Provider<ForgeTestingTests.Remote.Network>"])) {
        _ = pod.resolve(unnamedRemoteNetwork)
      }
    }
    let byFullName = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let pod = SwiftPod()
      withIsolatedContainers(pod, strict: .dependencies([unnamedRemoteNetwork.name])) {
        _ = pod.resolve(unnamedRemoteNetwork)
      }
    }
    for result in [byType, byFullName] {
      let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(
        stderr.contains(
          "[Forge.strictMode] Provider<ForgeTestingTests.Remote.Network> (StrictModeTests.swift:"), "\(stderr)")
    }
    // A name that is only a prefix of the type's does not forbid it.
    let pod = SwiftPod()
    withIsolatedContainers(pod, strict: .dependencies(["Provider<ForgeTestingTests.Remote>"])) {
      _ = pod.resolve(unnamedRemoteNetwork)
    }
  }
}
