import ForgeCore

/// The storage `@Inject` adds next to the property it expands: resolves once,
/// on first access (or at once, with `lazy: false`), and keeps the instance
/// for the owning object, even for a transient registration.
///
/// ```swift
/// @Inject var analytics: AnalyticsServiceProtocol
/// // expands to a getter reading `_analytics.value`, where
/// // `_analytics = InjectedDependency<AnalyticsServiceProtocol>("Owner.analytics", lazy: true)`
/// ```
///
/// The once-logic is the engine's: a first read builds through a one-slot
/// store, so concurrent first reads build once, and a read that would wait
/// for a thread that waits (maybe through other containers) for this one is
/// a cycle, reported with its path, never a hang.
public final class InjectedDependency<Value> {
  /// One slot (key 0), built once and kept.
  private let store = SlotStore<Int>()
  private let site: String
  private let fileID: StaticString
  private let line: UInt
  /// The container of the `ForgeContainer/withShared(_:operation:)`
  /// call this storage was created in, if any: a lazy read resolves from
  /// it even after that call returned. Outside one, a read resolves from
  /// ``ForgeContainer/shared`` as it is at that moment.
  private let creationContainer: ForgeContainerProtocol?

  /// Storage for the injection `site`; resolves now unless `lazy`.
  public init(_ site: String, lazy: Bool = true, fileID: StaticString = #fileID, line: UInt = #line) {
    self.site = site
    self.fileID = fileID
    self.line = line
    // The container a task swapped in with withShared, if any: kept.
    self.creationContainer = sharedStorage.taskValue ?? nil
    if !lazy { _ = value }
  }

  /// The dependency, resolved on first access. Concurrent first reads
  /// resolve once: the first thread resolves, the others wait for its
  /// result.
  public var value: Value {
    do {
      return try store.resolve(0, lifetime: .singleton, name: .text(site)) {
        // Resolution either succeeds or stops the program.
        ForgeInjection.resolve(site, in: creationContainer ?? ForgeContainer.shared, fileID: fileID, line: line)
          as Value
      }
    } catch let cycle as DependencyCycleError {
      let diagnostic = ForgeDiagnostic(
        .cycle,
        "Reading \(site) closes a dependency cycle: \(cycle.renderedPath)",
        reason: """
          What it resolves needs the object that injects it, on this thread or on one this \
          thread would wait for.
          """,
        fix: cycle.diagnostic.fix
      )
      fatalError("ForgeInject: \(diagnostic)", file: fileID, line: line)
    } catch {
      // ForgeInjection.resolve returns or stops; only the engine throws here.
      fatalError(
        "ForgeInject: \(ForgeDiagnostic.internalError("resolving \(site) failed: \(error)"))", file: fileID, line: line)
    }
  }
}

// Shared between threads only when the value it hands out can be.
extension InjectedDependency: Sendable where Value: Sendable {}
