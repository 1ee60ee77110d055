/// Which async builds await which, across every task and container: an
/// edge from a build to each build its factory is waiting for. A wait that
/// would close a circle of edges is refused with the circle's path, so two
/// builds that need each other fail instead of waiting forever.
enum AsyncWaits {
  fileprivate struct Graph {
    /// For each waiting build, the builds it waits for, with how many of
    /// its tasks (child tasks included) wait for each.
    var edges: [ObjectIdentifier: [ObjectIdentifier: Int]] = [:]
    /// The builds that appear in `edges`, for their names.
    var nodes: [ObjectIdentifier: AsyncBuildNode] = [:]
  }

  private static let graph = LockedValue(Graph())

  /// Records that `waiting` awaits `target`, unless `target` already waits,
  /// directly or through other builds, for `waiting`: then the cycle's path,
  /// `waiting` first and last, and nothing is recorded.
  static func begin(_ waiting: AsyncBuildNode, waitsFor target: AsyncBuildNode) -> [String]? {
    let from = ObjectIdentifier(waiting)
    let to = ObjectIdentifier(target)
    return graph.withValue { graph in
      if let path = graph.path(from: to, to: from) {
        return [waiting.name] + path.map { graph.nodes[$0]?.name ?? "?" }
      }
      graph.edges[from, default: [:]][to, default: 0] += 1
      graph.nodes[from] = waiting
      graph.nodes[to] = target
      return nil
    }
  }

  /// Ends a wait that ``begin(_:waitsFor:)`` recorded.
  static func end(_ waiting: AsyncBuildNode, waitsFor target: AsyncBuildNode) {
    let from = ObjectIdentifier(waiting)
    let to = ObjectIdentifier(target)
    graph.withValue { graph in
      guard let count = graph.edges[from]?[to] else { return }
      if count > 1 {
        graph.edges[from]?[to] = count - 1
        return
      }
      graph.edges[from]?[to] = nil
      if graph.edges[from]?.isEmpty == true { graph.edges[from] = nil }
      graph.forgetUnused(from)
      graph.forgetUnused(to)
    }
  }
}

extension AsyncWaits.Graph {
  /// The builds from `start` to `goal` along the edges, both included;
  /// nil when `goal` cannot be reached.
  fileprivate func path(from start: ObjectIdentifier, to goal: ObjectIdentifier) -> [ObjectIdentifier]? {
    if start == goal { return [start] }
    var previous: [ObjectIdentifier: ObjectIdentifier] = [start: start]
    var queue = [start]
    var index = 0
    while index < queue.count {
      let node = queue[index]
      index += 1
      for next in edges[node].map({ Array($0.keys) }) ?? [] where previous[next] == nil {
        previous[next] = node
        if next == goal {
          var path = [goal]
          var step = goal
          while step != start {
            step = previous[step]!
            path.append(step)
          }
          return path.reversed()
        }
        queue.append(next)
      }
    }
    return nil
  }

  /// Drops `node`'s name once no edge mentions it.
  fileprivate mutating func forgetUnused(_ node: ObjectIdentifier) {
    if edges[node] != nil { return }
    if edges.values.contains(where: { $0[node] != nil }) { return }
    nodes[node] = nil
  }
}
