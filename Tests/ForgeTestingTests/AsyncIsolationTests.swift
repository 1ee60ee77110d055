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

  @Test("a container-wide async override first awaited in a test's scope: the test's overrides serve it there only")
  func containerOverrideAwaitedInScope() async throws {
    let pod = SwiftPod()
    let x = Provider("x") { _ in "real x" }
    let a = AsyncProvider("a") { pod in "a over \(pod.resolve(x))" }
    pod.overrideProvider(a) { pod in "override over \(pod.resolve(x))" }
    let inScope = try await withIsolatedContainers(pod) {
      $0.overrideProvider(x, in: pod) { _ in "mock x" }
    } operation: {
      try await pod.resolve(a)
    }
    #expect(inScope == "override over mock x")
    let after = try await pod.resolve(a)
    #expect(after == "override over real x")
  }
}
