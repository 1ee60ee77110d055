/// Where one kept instance stands: nothing yet, being built by a thread in
/// some generation, or built. A value type with no locking of its own: the
/// owner (a slot, a scope's entry in a slot, a once-cell) keeps it behind
/// its lock, asks it what to do, and does that.
///
/// Resets, clears and re-registrations call ``invalidate()``: a build that
/// began before them finishes for its own caller but is not kept
/// (``finish(_:)`` answers `false`).
///
/// ```swift
/// var state = BuildState()
/// guard case .build(let ticket) = state.begin(by: me, hasInstance: false, lifetime: .singleton) else { … }
/// // … run the factory without the lock …
/// if state.finish(ticket) { keep(value) }
/// ```
package struct BuildState: Sendable, Equatable {
  /// Who builds, and for which generation: handed to the builder by
  /// ``begin(by:hasInstance:lifetime:)`` and given back when it finishes.
  package struct Ticket: Sendable, Equatable {
    package let builder: ObjectIdentifier
    package let generation: UInt
  }

  /// What a thread that wants the instance must do now.
  package enum Step: Sendable, Equatable {
    /// The instance exists: take it.
    case take
    /// Build it, then call ``BuildState/finish(_:)`` or ``BuildState/abandon(_:)``.
    case build(Ticket)
    /// Another thread builds it: wait for that thread, then ask again.
    case wait(for: ObjectIdentifier)
    /// The asking thread is building it already: a cycle.
    case cycle
  }

  /// Bumped by ``invalidate()``; a ticket of an older generation is stale.
  package private(set) var generation: UInt = 0
  /// The build in progress, if any.
  package private(set) var building: Ticket?
  /// The lifetime of the build in progress: what a clear matches it by
  /// while nothing is kept yet.
  package private(set) var buildingLifetime: Lifetime?

  package init() {}

  /// What `thread` must do to get the instance; when it is to build, the
  /// state records it as the builder.
  package mutating func begin(by thread: ObjectIdentifier, hasInstance: Bool, lifetime: Lifetime) -> Step {
    if hasInstance { return .take }
    if let building {
      return building.builder == thread ? .cycle : .wait(for: building.builder)
    }
    let ticket = Ticket(builder: thread, generation: generation)
    building = ticket
    buildingLifetime = lifetime
    return .build(ticket)
  }

  /// Ends the build `ticket` stands for, which produced an instance; true
  /// when the instance may be kept (nothing invalidated the state since
  /// the build began).
  package mutating func finish(_ ticket: Ticket) -> Bool {
    if building == ticket {
      building = nil
      buildingLifetime = nil
    }
    return ticket.generation == generation
  }

  /// Ends the build `ticket` stands for, which failed: the next asker builds.
  package mutating func abandon(_ ticket: Ticket) {
    if building == ticket {
      building = nil
      buildingLifetime = nil
    }
  }

  /// Starts a new generation: a build in progress will not be kept.
  package mutating func invalidate() {
    generation &+= 1
  }
}
