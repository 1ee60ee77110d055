import SwiftPod
import Testing

/// Providers whose resolution stops, each declared on a line the tests know.
enum LocatedProviders {
  final class Box: @unchecked Sendable { var second: Provider<[Any]>? }
  static let box = Box()

  static let firstLine = #line + 1
  static let first = Provider<[Any]>("first") { pod in [pod.resolve(box.second!)] }
  static let second = Provider<[Any]>("second", scope: AlwaysCreateNewScope()) { pod in [pod.resolve(first)] }

  static let unnamedLine = #line + 1
  static let unnamed: Provider<Int> = Provider(scope: AlwaysCreateNewScope()) { pod in pod.resolve(unnamed) }
}

@Suite("Where a SwiftPod stop points")
struct StopLocationTests {
  @Test("a provider cycle stops at the declaration of the provider that closes it")
  func cycleStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      LocatedProviders.box.second = LocatedProviders.second
      _ = SwiftPod().resolve(LocatedProviders.first)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "SwiftPodTests/StopLocationTests.swift:\(LocatedProviders.firstLine): Fatal error: SwiftPod: [Forge.cycle]"
      ))
  }

  @Test("an unnamed provider's stop points at it too")
  func unnamedStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = SwiftPod().resolve(LocatedProviders.unnamed)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "SwiftPodTests/StopLocationTests.swift:\(LocatedProviders.unnamedLine): Fatal error: SwiftPod: [Forge.cycle]"
      ))
  }
}
