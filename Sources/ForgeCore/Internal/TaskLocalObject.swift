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
    // Retained as it leaves the binding.
    boundObjectUnretained()?.takeUnretainedValue()
  }

  /// ``boundObject()`` without a retain: the binding keeps the object
  /// while the calling task runs inside it, so a caller that uses it
  /// synchronously, and retains what it keeps for later, saves the
  /// retain and release of every read (about 40 instructions).
  ///
  /// ```swift
  /// guard let current = $taskScope.boundObjectUnretained() else { return nil }
  /// return current._withUnsafeGuaranteedRef { $0.depth }
  /// ```
  @inline(__always)
  package func boundObjectUnretained<Object: AnyObject>() -> Unmanaged<Object>? where Value == Object? {
    // The address comes back as the result: written through a pointer to
    // a local, it cost each read a stack-protector check (about 30
    // instructions in all).
    let address = forge_task_local_address(Unmanaged.passUnretained(self).toOpaque())
    guard UInt(bitPattern: address) != FORGE_TASK_LOCALS_UNAVAILABLE else {
      // The runtime's copy is released here; the binding still holds it.
      return get().map { Unmanaged.passUnretained($0) }
    }
    guard let reference = address?.load(as: UnsafeRawPointer?.self) else { return nil }
    return Unmanaged.fromOpaque(reference)
  }
}
