import ForgeCore

/// Keeps every resolution event it receives, from any thread.
package final class EventLog: ResolutionObserver {
  package let events = Guarded<[ResolutionEvent]>([])
  package init() {}
  package func resolution(_ event: ResolutionEvent) { events.withLock { $0.append(event) } }

  /// The events as `kind dependency ← chain`, durations and messages
  /// dropped.
  package var lines: [String] {
    events.withLock { events in
      events.map { event in
        "\(event.kind.label) \(event.dependency)"
          + (event.chain.isEmpty ? "" : " ← \(event.chain.joined(separator: " ← "))")
      }
    }
  }
}
