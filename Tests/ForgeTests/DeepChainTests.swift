import Forge
import Testing

/// Levels keyed by their argument: level 0 reads `bottom`, each level above
/// adds 1 to the one below it.
final class DeepContainer: Container, @unchecked Sendable {
  let builds = Counter()
  var bottom: Int { provide(.cached) { 1 } }
  func level(_ index: Int) -> Int {
    provide(.cached, key: "level-\(index)") {
      self.builds.increment()
      return index == 0 ? self.bottom : self.level(index - 1) + 1
    }
  }
}

/// A build keeps a frame per level on its thread: chains deeper than a
/// thread's first frames build as shallow ones do, and a scope's override
/// at the bottom reaches the top.
@Suite("Forge: chains deeper than a thread's first frames", .timeLimit(.minutes(1)))
struct ForgeDeepChainTests {
  @Test("80 cached levels build once each; a scope that overrides the bottom rebuilds them for itself")
  func deepChain() {
    let container = DeepContainer()
    #expect(container.level(79) == 80)
    #expect(container.builds.count == 80)
    container.withOverrides {
      $0.override(\.bottom) { 1000 }
    } run: {
      #expect(container.level(79) == 1079)
      #expect(container.level(40) == 1040)
    }
    #expect(container.builds.count == 160)
    #expect(container.level(79) == 80)
    #expect(container.builds.count == 160)
  }
}
