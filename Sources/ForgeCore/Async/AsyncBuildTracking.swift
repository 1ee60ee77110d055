// How the engine follows async builds across tasks and reports them: the
// node a cycle's path names, the frame a build's task carries, what a
// factory resolved, and where a build reports (its slot, its store's
// observers, a shutdown).

/// An async build as the engine tracks it across tasks: what it is named in
/// a cycle's path, and which dependency it builds (two builds of one
/// transient dependency share the identity).
@usableFromInline package class AsyncBuildNode: @unchecked Sendable {
  // @unchecked: immutable.
  package let name: String
  let identity: AnyHashable

  init(name: String, identity: AnyHashable) {
    self.name = name
    self.identity = identity
  }

  @TaskLocal static var currentFrame: AsyncBuildFrame?

  /// The build the current task runs (its factory, and any child task it
  /// starts), with the builds that awaited it as parents.
  static var current: AsyncBuildFrame? { $currentFrame.boundObject() }

  /// Notes that the factory the current task runs, if it records, resolved
  /// `slot` itself (not from within a synchronous build).
  static func noteResolved(_ slot: AnySlot) {
    currentFrame?.recorder?.add(slot)
  }

  /// The async builds the current task runs within, outermost first.
  package static var chain: [String] { currentFrame?.names ?? [] }

  /// The slots of the async builds the current task runs within that
  /// belong to one, outermost first.
  package static var chainSlots: [AnySlot] {
    var slots: [AnySlot] = []
    var frame = currentFrame
    while let current = frame {
      if let slot = current.build.reportedSlot { slots.append(slot) }
      frame = current.parent
    }
    return slots.reversed()
  }

  /// The slot whose handle the build belongs to, if any.
  var reportedSlot: AnySlot? { nil }
}

/// Where an async build reports: the slot whose handle it belongs to, whose
/// recorded dependencies tell override scopes whether they reach it and
/// which, when `records`, the build records what its factory resolved in,
/// with the dependency's lifetime; and the store whose observers hear of
/// the build.
///
/// A build for an override scope (`forScope`) runs its factory in that
/// scope, and keeps what it resolved for graphs only, while the slot has
/// nothing recorded (``AnySlot/recordScopeBuild(_:lifetime:)``).
package struct AsyncBuildReporting: Sendable {
  weak var slot: AnySlot?
  let records: Bool
  let lifetime: Lifetime
  weak var host: (any AsyncBuildHost)?
  let forScope: Bool

  package init(
    slot: AnySlot? = nil, records: Bool = false, lifetime: Lifetime = .transient, host: (any AsyncBuildHost)? = nil,
    forScope: Bool = false
  ) {
    self.slot = slot
    self.records = records
    self.lifetime = lifetime
    self.host = host
    self.forScope = forScope
  }

  /// Whether a build starting now keeps what its factory resolves: a
  /// scope's build only while the slot has nothing recorded (what it
  /// resolves is gathered under a gate that sends every task's reads to
  /// the general path).
  var recordsNow: Bool {
    guard records, let slot else { return false }
    return !forScope || slot.dependenciesRecorded.value == 0
  }

  /// This reporting, for a build kept for an override scope.
  var forScopeBuild: AsyncBuildReporting {
    AsyncBuildReporting(slot: slot, records: records, lifetime: lifetime, host: host, forScope: true)
  }

  /// Keeps `dependencies` as what the build's factory resolved: recorded
  /// in the slot, or for graphs only when the build is a scope's.
  func keep(_ dependencies: [AnySlot]) {
    guard let slot else { return }
    if forScope {
      slot.recordScopeBuild(dependencies, lifetime: lifetime)
    } else {
      slot.recordDependencies(dependencies, lifetime: lifetime)
    }
  }

  /// Reporting for a handle being made now: to the slot whose build on this
  /// thread makes it, when the slot holds async handles; the build records
  /// when that build does (the slot's own factory's, not an override's or a
  /// preview's).
  static func forHandleMadeNow(lifetime: Lifetime, host: (any AsyncBuildHost)?) -> AsyncBuildReporting {
    let thread = ResolutionContext.currentFast
    let depth = thread.pointee.buildDepth
    guard depth > 0 else { return AsyncBuildReporting(lifetime: lifetime, host: host) }
    let frame = thread.pointee[frame: depth - 1]
    let slot = frame.slot.takeUnretainedValue()
    guard slot.buildsAsynchronously else { return AsyncBuildReporting(lifetime: lifetime, host: host) }
    return AsyncBuildReporting(slot: slot, records: frame.recordsDependencies, lifetime: lifetime, host: host)
  }

  /// Reporting for a handle of the dependency `identity` being made now:
  /// as ``forHandleMadeNow(lifetime:host:)``, with the store that
  /// `identity` names, if it does, as the host.
  static func forDependencyHandleMadeNow(lifetime: Lifetime, identity: AnyHashable) -> AsyncBuildReporting {
    forHandleMadeNow(lifetime: lifetime, host: (identity.base as? AsyncDependencyIdentity)?.host)
  }

  /// What tells the host's observers, as they are now, of a build of
  /// `dependency` requested with `chain` (read only when some observer
  /// listens).
  func teller(for dependency: String, chain: @autoclosure () -> [String]) -> (ResolutionEvent.Kind) -> Void {
    let observers = host?.asyncBuildObservers() ?? []
    let chain = observers.isEmpty ? [] : chain()
    return { kind in
      let event = ResolutionEvent(kind: kind, dependency: dependency, chain: chain)
      for observer in observers { observer.resolution(event) }
    }
  }
}

extension ResolutionEvent.Kind {
  /// How a build that started at `start` ended: built, or failed with
  /// `failure`.
  static func ended(since start: ContinuousClock.Instant, failure: (any Error)?) -> Self {
    guard let failure else { return .built(ContinuousClock.now - start) }
    return .failed(ForgeDiagnostic.of(failure).description)
  }
}

/// A store whose async builds tell its observers how they went.
package protocol AsyncBuildHost: AnyObject, Sendable {
  /// The observers to tell now; empty when there are none.
  func asyncBuildObservers() -> [any ResolutionObserver]
}

/// A handle type whose slot's dependencies its async build records: slots
/// of such types record nothing when the handle is made.
package protocol AsyncBuiltHandle {
  /// The type of the instance the handle's build makes.
  static var instanceType: Any.Type { get }
}

/// What an async factory resolved, from whichever threads and child tasks
/// it ran on, in first-resolution order.
final class AsyncDependencyRecorder: @unchecked Sendable {
  // @unchecked: `resolved` is only touched while `lock` is held.
  private let lock = ConditionLock()
  private var resolved: [AnySlot] = []

  func add(_ slot: AnySlot) {
    lock.withLock {
      if !resolved.contains(where: { $0 === slot }) { resolved.append(slot) }
    }
  }

  var slots: [AnySlot] { lock.withLock { resolved } }
}

/// A build as seen from the task that runs its factory: the build, and the
/// frame of the build that started it.
final class AsyncBuildFrame: Sendable {
  let build: AsyncBuildNode
  let parent: AsyncBuildFrame?
  /// Where what the factory resolves goes; nil when nothing records it.
  let recorder: AsyncDependencyRecorder?

  init(build: AsyncBuildNode, parent: AsyncBuildFrame?, recorder: AsyncDependencyRecorder? = nil) {
    self.build = build
    self.parent = parent
    self.recorder = recorder
  }

  /// The names of this build and the ones that awaited it, outermost first.
  var names: [String] {
    var names: [String] = []
    var frame: AsyncBuildFrame? = self
    while let current = frame {
      names.append(current.build.name)
      frame = current.parent
    }
    return names.reversed()
  }
}

/// A kept async instance a container's shutdown reaches through its handle.
package protocol AsyncKeptInstance {
  /// The instance and when it was kept, if it is.
  var keptForShutdown: (sequence: Int, instance: Any)? { get }
  /// Whether a build of the instance is in progress, other than one the
  /// calling task runs inside.
  var hasBuildInProgress: Bool { get }
  /// Returns once no build of the instance is in progress (at once when
  /// none is), or once the calling task is cancelled. Waiting is not
  /// awaiting the instance: it neither keeps a build whose callers were
  /// all cancelled going nor starts one.
  func buildInProgressEnded() async
}
