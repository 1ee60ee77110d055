import DependencyFetcher
import Forge
import ForgeInject
import SwiftPod

// The same subjects, declared in each Forge dialect.

final class BenchContainer: Container, @unchecked Sendable {
  var cachedLeaf: Leaf { provide(.singleton) { Leaf() } }
  var transientLeaf: TransientLeaf { provide(.transient) { TransientLeaf() } }
  var chainC: ChainC { provide(.singleton) { ChainC() } }
  var chainB: ChainB { provide(.transient) { ChainB(c: self.chainC) } }
  var chainA: ChainA { provide(.transient) { ChainA(b: self.chainB) } }
  var graphRoot: Node { node(0) }

  func node(_ index: Int) -> Node {
    provide(Graph.isSingleton(index) ? .singleton : .transient, key: Self.nodeKeys[index]) {
      Node(children: Graph.children(of: index).map(self.node))
    }
  }

  static let nodeKeys = (0..<Graph.size).map { "node\($0)" }
}

func makeForgeInjectContainer() -> ForgeContainer {
  let container = ForgeContainer()
  container.register(with: .singleton) { _ in Leaf() }
  container.register(with: .transient) { _ in TransientLeaf() }
  container.register(with: .singleton) { _ in ChainC() }
  container.register(with: .transient) { container in ChainB(c: try container.resolve()) }
  container.register(with: .transient) { container in ChainA(b: try container.resolve()) }
  return container
}

/// ForgeInject keys by type, so the graph's 50 nodes are 50 types:
/// `Typed<Tag>` for a distinct `Tag` per node (HundredTypes.swift).
final class Typed<Tag>: Sendable {
  let node: Node
  init(_ node: Node) { self.node = node }
}

let podCachedLeaf = Provider { _ in Leaf() }
let podTransientLeaf = Provider(scope: AlwaysCreateNewScope()) { _ in TransientLeaf() }
let podChainC = Provider { _ in ChainC() }
let podChainB = Provider(scope: AlwaysCreateNewScope()) { pod in ChainB(c: pod.resolve(podChainC)) }
let podChainA = Provider(scope: AlwaysCreateNewScope()) { pod in ChainA(b: pod.resolve(podChainB)) }
let podGraph: [Provider<Node>] = {
  final class Box: @unchecked Sendable {
    // @unchecked: filled once below, before anything resolves.
    var providers: [Provider<Node>] = []
  }
  let box = Box()
  box.providers = (0..<Graph.size).map { index in
    Provider(scope: Graph.isSingleton(index) ? SingletonScope() as ProviderScope : AlwaysCreateNewScope()) { pod in
      Node(children: Graph.children(of: index).map { pod.resolve(box.providers[$0]) })
    }
  }
  return box.providers
}()

extension Service where T == Leaf {
  static let benchLeaf = Service { Leaf() }
}
