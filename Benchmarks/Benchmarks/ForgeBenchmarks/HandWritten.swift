// Injection written by hand: the baseline every ratio is taken against.

final class HandWrittenContainer: @unchecked Sendable {
  // @unchecked: `singletons` is filled in `init` and only read afterwards.
  let leafSingleton = Leaf()
  let chainC = ChainC()
  private var singletons: [Node?] = Array(repeating: nil, count: Graph.size)

  init() {
    for index in (0..<Graph.size).reversed() where Graph.isSingleton(index) {
      singletons[index] = node(index)
    }
  }

  /// A stored `let` returned through a call the optimiser may not inline.
  @inline(never)
  func cachedLeaf() -> Leaf { leafSingleton }

  @inline(never)
  func transientLeaf() -> TransientLeaf { TransientLeaf() }

  @inline(never)
  func chain() -> ChainA { ChainA(b: ChainB(c: chainC)) }

  @inline(never)
  func graphRoot() -> Node { node(0) }

  private func node(_ index: Int) -> Node {
    if let singleton = singletons[index] { return singleton }
    return Node(children: Graph.children(of: index).map(node))
  }
}
