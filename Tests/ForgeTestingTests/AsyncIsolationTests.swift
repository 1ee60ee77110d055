import ForgeTestSupport
import ForgeTesting
import SwiftPod
import Testing

@Suite("ForgeTesting: isolation and async dependencies", .timeLimit(.minutes(1)))
struct AsyncIsolationTests {
  @Test("each isolated block builds its own async instance; the container keeps none of them")
  func isolatedBlocks() async throws {
    let factory = AsyncFactory()
    let provider = AsyncProvider { _ in try await factory.make() }
    let pod = SwiftPod()
    let first = try await withIsolatedContainers(pod) {
      let thing = try await pod.resolve(provider)
      #expect(try await pod.resolve(provider) === thing)
      return thing
    }
    let second = try await withIsolatedContainers(pod) { try await pod.resolve(provider) }
    let outside = try await pod.resolve(provider)
    #expect(first !== second && outside !== first && outside !== second)
    #expect(factory.builds.count == 3)
  }
}
