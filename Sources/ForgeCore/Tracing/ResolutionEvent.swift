/// What happened to one resolution, for a ``ResolutionObserver``.
///
/// Every resolution an observer sees starts with `.requested` and ends with
/// exactly one of the others; resolutions made while building (the chain
/// below it) come in between, so events nest like the builds. An async
/// dependency's build is a resolution of its own, told from the build's
/// task: `.requested` when it starts, `.built` or `.failed` when it ends,
/// with what its factory resolved in between (resolving its handle is a
/// `.cacheHit`).
public struct ResolutionEvent: Sendable, Hashable {
  /// The kinds of event.
  public enum Kind: Sendable, Hashable {
    /// The dependency was asked for.
    case requested
    /// A kept instance served it.
    case cacheHit
    /// Its own factory built it, in this long (including what it resolved).
    case built(Duration)
    /// An override served it (container-wide or a `withOverrides` scope).
    case overrideUsed
    /// Its preview factory served it.
    case previewUsed
    /// It failed; the text is the diagnostic.
    case failed(String)
  }

  /// What happened.
  public let kind: Kind
  /// The dependency, as messages name it (`AppContainer.api`).
  public let dependency: String
  /// The builds in progress when it was requested, outermost first: the
  /// chain that led here (empty for a resolution made directly).
  public let chain: [String]

  public init(kind: Kind, dependency: String, chain: [String]) {
    self.kind = kind
    self.dependency = dependency
    self.chain = chain
  }
}

/// Receives the resolution events of the containers it is added to.
///
/// Events arrive on the resolving thread, synchronously, while no lock of
/// the container is held; keep the work small, and do not resolve from the
/// observed container inside it. Adding one makes that container's
/// resolutions take the observed (locked) path; removing the last one
/// brings the lock-free path back.
///
/// ```swift
/// struct Counter: ResolutionObserver {
///   let builds = Mutex(0)
///   func resolution(_ event: ResolutionEvent) {
///     if case .built = event.kind { builds.withLock { $0 += 1 } }
///   }
/// }
/// ```
public protocol ResolutionObserver: Sendable {
  /// Called for every event of an observed container.
  func resolution(_ event: ResolutionEvent)
}

/// Identifies an added observer, for removing it.
public struct ObserverToken: Hashable, Sendable {
  let value: Int
}

/// Prints each resolution made directly (not from inside a build) as an
/// indented tree once it is done: what it resolved below it, and how each
/// was served.
///
/// ```swift
/// let token = AppContainer.shared.addObserver(ResolutionTreePrinter())
/// _ = AppContainer.shared.loginViewModel
/// // AppContainer.loginViewModel — built in 41µs
/// //   AppContainer.authService — cached
/// AppContainer.shared.removeObserver(token)
/// ```
///
/// An async dependency's build runs in a task of its own: its line stands
/// under the build that awaited it, or starts a tree of its own when it was
/// awaited directly (after the line of its handle, `cached`). Resolutions
/// that run at once on several threads or tasks each make their own tree.
public final class ResolutionTreePrinter: ResolutionObserver, @unchecked Sendable {
  // @unchecked: `resolving` and every tree are only touched under `lock`.
  private let lock = ConditionLock()
  /// Per task (or per thread, outside any task): the tree its events add
  /// to, and its resolutions in progress there, innermost last.
  private var resolving: [Resolver: (tree: Tree, open: [Line])] = [:]
  private let write: @Sendable (String) -> Void

  /// Where events come from: tasks' resolutions never interleave within a
  /// task, and a thread's outside any task never interleave on it. A task
  /// is known by its hash: the task itself must not outlive the closure
  /// that lends it.
  private enum Resolver: Hashable {
    case task(Int)
    case thread(ObjectIdentifier)

    static var current: Resolver {
      withUnsafeCurrentTask { task in task.map { .task($0.hashValue) } }
        ?? .thread(ObjectIdentifier(ResolutionContext.current))
    }
  }

  /// One resolution: its line, then the lines of what it resolved.
  private final class Line {
    let name: String
    var outcome: String?
    var children: [Line] = []
    unowned let parent: Line?  // the tree holds every line
    /// Where its resolution began: a line another resolver adds below it
    /// is a build of its own (an async one, in its task).
    let resolver: Resolver

    init(name: String, parent: Line?, resolver: Resolver) {
      self.name = name
      self.parent = parent
      self.resolver = resolver
    }

    /// The names from the tree's root down to this line.
    var path: [String] { (parent?.path ?? []) + [name] }

    func render(depth: Int, into text: inout String) {
      text += String(repeating: "  ", count: depth) + name + " — " + (outcome ?? "?") + "\n"
      for child in children { child.render(depth: depth + 1, into: &text) }
    }
  }

  /// A direct resolution's tree; printed once nothing in it is in progress.
  private final class Tree {
    let root: Line
    var inProgress = 1
    init(_ root: Line) { self.root = root }
  }

  /// A printer that hands each finished tree, one string of lines, to
  /// `write` (by default, `print`).
  public init(write: @escaping @Sendable (String) -> Void = { print($0, terminator: "") }) {
    self.write = write
  }

  public func resolution(_ event: ResolutionEvent) {
    let resolver = Resolver.current
    let finished: String? = lock.withLock {
      if case .requested = event.kind {
        begin(event, by: resolver)
        return nil
      }
      return end(event, by: resolver)
    }
    if let finished { write(finished) }
  }

  /// Adds the line of a resolution `resolver` begins: below its own
  /// resolution in progress, else below the build its chain names (a
  /// build started in a task of its own), else as a tree of its own.
  private func begin(_ event: ResolutionEvent, by resolver: Resolver) {
    if var entry = resolving[resolver], let parent = entry.open.last {
      let line = Line(name: event.dependency, parent: parent, resolver: resolver)
      parent.children.append(line)
      entry.open.append(line)
      entry.tree.inProgress += 1
      resolving[resolver] = entry
      return
    }
    if !event.chain.isEmpty, let (tree, parent) = openLine(at: event.chain) {
      // The handle's line just before it, resolved by the build that
      // awaits this one, becomes the build's line.
      let line: Line
      if let handle = parent.children.last, handle.name == event.dependency, handle.resolver != resolver,
        handle.outcome == Self.outcome(.cacheHit)
      {
        handle.outcome = nil
        line = handle
      } else {
        line = Line(name: event.dependency, parent: parent, resolver: resolver)
        parent.children.append(line)
      }
      tree.inProgress += 1
      resolving[resolver] = (tree, [line])
      return
    }
    let root = Line(name: event.dependency, parent: nil, resolver: resolver)
    resolving[resolver] = (Tree(root), [root])
  }

  /// Ends `resolver`'s innermost resolution; the tree's text once nothing
  /// in it is in progress.
  private func end(_ event: ResolutionEvent, by resolver: Resolver) -> String? {
    guard var entry = resolving[resolver], let line = entry.open.popLast() else { return nil }
    line.outcome = Self.outcome(event.kind)
    resolving[resolver] = entry.open.isEmpty ? nil : entry
    entry.tree.inProgress -= 1
    guard entry.tree.inProgress == 0 else { return nil }
    var text = ""
    entry.tree.root.render(depth: 0, into: &text)
    return text
  }

  /// The resolution in progress whose path from its tree's root is `chain`.
  private func openLine(at chain: [String]) -> (Tree, Line)? {
    for entry in resolving.values {
      for line in entry.open.reversed() where line.name == chain.last && line.path == chain {
        return (entry.tree, line)
      }
    }
    return nil
  }

  static func outcome(_ kind: ResolutionEvent.Kind) -> String {
    switch kind {
    case .requested: "requested"
    case .cacheHit: "cached"
    case .built(let duration): "built in \(duration.formatted)"
    case .overrideUsed: "overridden"
    case .previewUsed: "preview"
    case .failed(let message): "failed: \(message)"
    }
  }
}

/// Reports every build slower than a threshold, with the chain that led to
/// it.
///
/// ```swift
/// container.addObserver(SlowBuildReporter(threshold: .milliseconds(5)))
/// // Slow build: AppContainer.database took 12ms (chain: AppContainer.repository)
/// ```
public struct SlowBuildReporter: ResolutionObserver {
  public let threshold: Duration
  private let report: @Sendable (String) -> Void

  /// Reports builds that take longer than `threshold` to `report` (by
  /// default, `print`).
  public init(threshold: Duration, report: @escaping @Sendable (String) -> Void = { print($0) }) {
    self.threshold = threshold
    self.report = report
  }

  public func resolution(_ event: ResolutionEvent) {
    guard case .built(let duration) = event.kind, duration > threshold else { return }
    let chain = event.chain.isEmpty ? "" : " (chain: \(event.chain.joined(separator: " → ")))"
    report("Slow build: \(event.dependency) took \(duration.formatted)\(chain)")
  }
}

extension Duration {
  /// Microseconds below a millisecond, milliseconds below a second, seconds
  /// above, whole numbers: short enough for a trace line.
  var formatted: String {
    let (seconds, attoseconds) = components
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    switch nanoseconds {
    case ..<1_000_000: return "\(nanoseconds / 1_000)µs"
    case ..<1_000_000_000: return "\(nanoseconds / 1_000_000)ms"
    default: return "\(seconds)s"
    }
  }
}
