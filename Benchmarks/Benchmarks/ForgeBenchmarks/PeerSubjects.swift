import Dependencies
@preconcurrency import Swinject

// The same subjects, in the peers.

func makeSwinjectContainer() -> Swinject.Container {
  let container = Swinject.Container()
  container.register(Leaf.self, name: "cached") { _ in Leaf() }.inObjectScope(.container)
  container.register(TransientLeaf.self) { _ in TransientLeaf() }.inObjectScope(.transient)
  container.register(ChainC.self) { _ in ChainC() }.inObjectScope(.container)
  container.register(ChainB.self) { r in ChainB(c: r.resolve(ChainC.self)!) }.inObjectScope(.transient)
  container.register(ChainA.self) { r in ChainA(b: r.resolve(ChainB.self)!) }.inObjectScope(.transient)
  for index in 0..<Graph.size {
    container.register(Node.self, name: nodeNames[index]) { r in
      Node(children: Graph.children(of: index).map { r.resolve(Node.self, name: nodeNames[$0])! })
    }
    .inObjectScope(Graph.isSingleton(index) ? .container : .transient)
  }
  return container
}

let nodeNames = (0..<Graph.size).map { "node\($0)" }

private enum LeafKey: DependencyKey {
  static let liveValue = Leaf()
}

extension DependencyValues {
  var benchLeaf: Leaf {
    get { self[LeafKey.self] }
    set { self[LeafKey.self] = newValue }
  }
}

/// Reads the dependency the way a feature would.
@inline(never)
func swiftDependenciesLeaf() -> Leaf {
  @Dependency(\.benchLeaf) var leaf
  return leaf
}
