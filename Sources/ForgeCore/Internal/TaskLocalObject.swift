import CForgeAtomics

extension TaskLocal {
  /// The object the calling task binds to this task-local, whose default
  /// is nil, read where the runtime stores it. ``TaskLocal/get()`` is
  /// generic code that the caller cannot specialise: it copies the value
  /// out through `Optional`'s value witnesses, about 60 instructions more,
  /// on every resolution a task inside an override scope makes.
  ///
  /// ```swift
  /// package static var current: OverrideScope? { $taskScope.boundObject() }
  /// ```
  @inline(__always)
  package func boundObject<Object: AnyObject>() -> Object? where Value == Object? {
    var stored: UnsafeMutableRawPointer?
    guard forge_task_local_value(Unmanaged.passUnretained(self).toOpaque(), &stored) != 0 else { return get() }
    // Nothing binds it: the default, nil. Bound: one word, the reference
    // or nil, copied out (retained) by the load.
    return stored?.load(as: Object?.self) ?? nil
  }
}
