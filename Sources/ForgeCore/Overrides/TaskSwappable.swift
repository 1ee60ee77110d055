/// A process-wide setting that a task can swap for itself and the tasks it
/// starts, as a task-local: Forge's `Forge.defaultContainer` and
/// ForgeInject's `ForgeContainer.shared` are both one, so a test that swaps
/// either never changes what a parallel test sees.
///
/// ```swift
/// let setting = TaskSwappable<Int>(1)
/// setting.with(2) { setting.current }  // 2, for this task only
/// setting.current                      // 1
/// ```
package final class TaskSwappable<Value: Sendable>: Sendable {
  private let processValue: LockedValue<Value>

  package init(_ initial: Value) {
    processValue = LockedValue(initial)
  }

  /// The task's swapped value if it has one, the process-wide one otherwise.
  package var current: Value {
    if let swapped = TaskSwaps.current[ObjectIdentifier(self)] { return swapped as! Value }
    return processValue.withValue { $0 }
  }

  /// The value the current task swapped in, if it did (nil otherwise).
  package var taskValue: Value? {
    TaskSwaps.current[ObjectIdentifier(self)].map { $0 as! Value }
  }

  /// Changes the process-wide value, under the lock; `body` may refuse.
  package func updateProcessValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try processValue.withValue(body)
  }

  /// Runs `operation` with `value` as ``current`` for the current task and
  /// the tasks it starts.
  package func with<R>(_ value: Value, operation: () throws -> R) rethrows -> R {
    try TaskSwaps.$current.withValue(TaskSwaps.current.merging([ObjectIdentifier(self): value]) { $1 }) {
      try operation()
    }
  }

  /// The asynchronous form of ``with(_:operation:)``.
  nonisolated(nonsending)
    package func with<R>(_ value: Value, operation: () async throws -> R) async rethrows -> R
  {
    try await TaskSwaps.$current.withValue(TaskSwaps.current.merging([ObjectIdentifier(self): value]) { $1 }) {
      try await operation()
    }
  }
}

/// Every swapped ``TaskSwappable`` of the current task, by identity.
private enum TaskSwaps {
  @TaskLocal static var current: [ObjectIdentifier: any Sendable] = [:]
}
