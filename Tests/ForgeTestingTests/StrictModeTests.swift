import DependencyFetcher
import Forge
import ForgeCore
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

/// A container that a trait isolates in strict mode.
let strictlyTested: ForgeContainer = {
  let container = ForgeContainer()
  container.register(with: .singleton) { _ in Remote.Network() }
  return container
}()

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

  @Test("Forge: the stop names the test whose strict mode forbids the factory")
  func stopNamesTheTest() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      // An exit test's body runs in a process of its own, where no test is
      // current: the scope is given the name as ForgeTesting gives it.
      OverrideScope.isolating(
        [NetworkContainer.shared], strict: .dependencies(["NetworkContainer.network"]),
        strictOwner: "“checkout()” (CheckoutTests.swift:12)"
      ) {
        _ = NetworkContainer.shared.api
      }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("The test “checkout()” (CheckoutTests.swift:12) runs in strict mode"), "\(stderr)")
  }

  @Test(
    "ForgeInject: a violation names the test the trait isolates",
    .isolated(strictlyTested, strict: .allUnoverridden))
  func traitNamesTheTest() {
    #expect {
      _ = try strictlyTested.resolve() as Remote.Network
    } throws: { error in
      String(describing: error).contains(
        "The test “ForgeInject: a violation names the test the trait isolates” (StrictModeTests.swift:")
    }
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
          // withIsolatedContainers names the current test.
          && String(describing: error).contains(
            "The test “ForgeInject: every unoverridden registration is forbidden with .allUnoverridden, and the error is thrown” (StrictModeTests.swift:"
          )
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
