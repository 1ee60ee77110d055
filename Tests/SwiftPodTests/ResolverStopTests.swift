import SwiftPod
import Testing

/// A resolver of the user's own, which builds plain providers only.
struct PlainResolver: ProviderResolver {
  func resolve<T>(_ provider: Provider<T>) -> T { SwiftPod().resolve(provider) }
}

/// Providers only a SwiftPod builds, on lines the tests know.
enum PodOnlyProviders {
  static let asyncLine = #line + 1
  static let async = AsyncProvider { _ in 1 }
  static let mainActorLine = #line + 1
  static let mainActor = MainActorProvider { _ in 1 }
}

@Suite("SwiftPod: providers only a pod builds, asked of another resolver", .timeLimit(.minutes(1)))
struct ResolverStopTests {
  @Test("an async provider asked of another resolver stops at its declaration, saying to use a SwiftPod")
  func asyncThroughOtherResolver() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = try? await PlainResolver().resolve(PodOnlyProviders.async)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains("SwiftPodTests/ResolverStopTests.swift:\(PodOnlyProviders.asyncLine): Fatal error: SwiftPod:"))
    #expect(
      stderr.contains(
        "AsyncProvider<Swift.Int> (ResolverStopTests.swift:\(PodOnlyProviders.asyncLine)) is async but SwiftPodTests.PlainResolver "
          + "cannot build it. Only a SwiftPod builds asynchronously. To fix it, resolve it through a SwiftPod."),
      "\(stderr)")
  }

  @Test("a main-actor provider asked of another resolver stops at its declaration, saying to use a SwiftPod")
  func mainActorThroughOtherResolver() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = await MainActor.run { PlainResolver().resolve(PodOnlyProviders.mainActor) }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains("SwiftPodTests/ResolverStopTests.swift:\(PodOnlyProviders.mainActorLine): Fatal error: SwiftPod:")
    )
    #expect(
      stderr.contains(
        "MainActorProvider<Swift.Int> (ResolverStopTests.swift:\(PodOnlyProviders.mainActorLine)) is built on the "
          + "main actor but SwiftPodTests.PlainResolver cannot build it. Only a SwiftPod builds on the main actor. To fix it, "
          + "resolve it through a SwiftPod."),
      "\(stderr)")
  }
}
