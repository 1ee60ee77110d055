import SwiftPod
import Testing

/// Providers `count` deep: level 0 makes 1, each level above adds 1 to the
/// one below it.
func deepChain(_ count: Int, scope: @autoclosure () -> ProviderScope) -> [Provider<Int>] {
  var providers = [Provider<Int>("level 0", scope: scope()) { _ in 1 }]
  for level in 1..<count {
    let below = providers[level - 1]
    providers.append(Provider("level \(level)", scope: scope()) { pod in pod.resolve(below) + 1 })
  }
  return providers
}

/// A build keeps a frame per level on its thread, and an override read
/// below the first few levels shares one hazard pointer: chains deeper
/// than either must build as shallow ones do.
@Suite("SwiftPod: chains deeper than a thread's first frames", .timeLimit(.minutes(1)))
struct DeepChainTests {
  @Test("100 transient levels build, and an override of the bottom reaches the top")
  func transientChain() {
    let pod = SwiftPod()
    let chain = deepChain(100, scope: AlwaysCreateNewScope())
    #expect(pod.resolve(chain[99]) == 100)
    pod.overrideProvider(chain[0]) { _ in 1000 }
    #expect(pod.resolve(chain[99]) == 1099)
    pod.overrideProvider(chain[50]) { pod in pod.resolve(chain[49]) * 2 }
    #expect(pod.resolve(chain[99]) == 2 * 1049 + 49)
    pod.removeOverrideProvider(chain[0])
    #expect(pod.resolve(chain[99]) == 2 * 50 + 49)
  }

  @Test("100 singleton levels build once, from two threads at once")
  func singletonChain() {
    let pod = SwiftPod()
    let chain = deepChain(100, scope: SingletonScope())
    let builds = Counter()
    let counted = Provider("counted top") { pod in
      builds.increment()
      return pod.resolve(chain[99])
    }
    let results = Guarded<[Int]>([])
    onThreads(2) { _ in
      let top = pod.resolve(counted)
      results.withLock { $0.append(top) }
    }
    #expect(results.withLock { $0 } == [100, 100])
    #expect(builds.count == 1)
    #expect(pod.resolve(chain[0]) == 1)
  }
}
