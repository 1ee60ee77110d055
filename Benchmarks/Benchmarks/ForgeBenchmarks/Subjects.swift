// The identical tiny classes every system builds.

/// A dependency with no dependencies.
final class Leaf: Sendable {
  init() {}
}

/// A dependency with no dependencies, built anew on every resolution (its
/// own type, so that type-keyed containers can register it transient).
final class TransientLeaf: Sendable {
  init() {}
}

/// The bottom of the three-level chain; a singleton.
final class ChainC: Sendable {
  init() {}
}

final class ChainB: Sendable {
  let c: ChainC
  init(c: ChainC) { self.c = c }
}

/// The top of the chain A(B(C)); A and B are transient.
final class ChainA: Sendable {
  let b: ChainB
  init(b: ChainB) { self.b = b }
}

/// A node of the 50-node graph.
final class Node: Sendable {
  let children: [Node]
  init(children: [Node]) { self.children = children }
}

/// The 50-node graph: a binary tree (node i has children 2i+1 and 2i+2),
/// where every node with i % 3 == 2 is a singleton and the rest, the root
/// included, are transient.
enum Graph {
  static let size = 50
  static func children(of index: Int) -> [Int] { [2 * index + 1, 2 * index + 2].filter { $0 < size } }
  static func isSingleton(_ index: Int) -> Bool { index % 3 == 2 }

  /// Two builds of a graph in preorder: each node's number of children and
  /// whether both builds share it (a singleton). Every system must match
  /// the hand-written signature.
  static func signature(_ first: Node, _ second: Node) -> [String] {
    ["\(first.children.count)\(first === second ? "s" : "t")"]
      + zip(first.children, second.children).flatMap { signature($0, $1) }
  }
}
