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
public final class ResolutionTreePrinter: ResolutionObserver, @unchecked Sendable {
  // @unchecked: `trees` is only touched under `lock`.
  private let lock = ConditionLock()
  /// Per thread: the tree's lines so far, and the open resolutions (index
  /// of their line).
  private var trees: [ObjectIdentifier: (lines: [(depth: Int, name: String, outcome: String?)], open: [Int])] = [:]
  private let write: @Sendable (String) -> Void

  /// A printer that hands each finished tree, one string of lines, to
  /// `write` (by default, `print`).
  public init(write: @escaping @Sendable (String) -> Void = { print($0, terminator: "") }) {
    self.write = write
  }

  public func resolution(_ event: ResolutionEvent) {
    let thread = ObjectIdentifier(ResolutionContext.current)
    let finished: String? = lock.withLock {
      var tree = trees[thread] ?? ([], [])
      defer { trees[thread] = tree.open.isEmpty ? nil : tree }
      switch event.kind {
      case .requested:
        tree.open.append(tree.lines.count)
        tree.lines.append((event.chain.count, event.dependency, nil))
        return nil
      default:
        guard let line = tree.open.popLast() else { return nil }
        tree.lines[line].outcome = Self.outcome(event.kind)
        guard tree.open.isEmpty else { return nil }
        let base = tree.lines.first?.depth ?? 0
        let text = tree.lines.map { entry in
          String(repeating: "  ", count: max(0, entry.depth - base)) + entry.name + " — " + (entry.outcome ?? "?")
        }
        tree = ([], [])
        return text.joined(separator: "\n") + "\n"
      }
    }
    if let finished { write(finished) }
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
