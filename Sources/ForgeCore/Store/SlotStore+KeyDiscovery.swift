/// Learning which key an accessor resolves, without knowing how it is written.
///
/// Forge identifies overrides by key path (`override(\.authService)`), but a
/// property resolves by its `#function` key. Rather than parse the key path's
/// description (which names the property on Apple platforms only), the store
/// reads the property once in capture mode: the dialect's resolve entry point
/// sees the capture, records its key and returns the placeholder instead of
/// resolving anything. The answer is remembered per alias (the key path).
extension SlotStore {
  /// The key that `read` resolves in this store, discovered once per `alias`.
  ///
  /// - Parameters:
  ///   - alias: what identifies the accessor (a key path), for the memo.
  ///   - placeholder: the value the read returns while capturing.
  ///   - read: reads the accessor.
  package func discoverKey<T>(
    alias: AnyHashable,
    placeholder: @escaping () -> T,
    read: () -> T
  ) -> Key? {
    if let known = discoveredKey(for: alias) { return known }
    let context = ResolutionContext.current
    let previous = context.keyCapture
    context.keyCapture = KeyCapture(
      store: ObjectIdentifier(self),
      valueType: ObjectIdentifier(T.self),
      placeholder: placeholder
    )
    _ = read()
    let key = context.keyCapture?.capturedKey?.base as? Key
    context.keyCapture = previous
    if let key { lock.withLock { discoveredKeys[alias] = key } }
    return key
  }

  /// During ``discoverKey(alias:placeholder:read:)`` on this thread, records
  /// `key` and returns the placeholder; otherwise returns nil at once.
  @inline(__always)
  package func capturing<T>(_ key: Key, as type: T.Type) -> T? {
    guard let context = ResolutionContext.currentIfPresent, context.keyCapture != nil else { return nil }
    return capture(key, as: T.self, in: context) as? T
  }

  /// The placeholder for `key` if this thread is capturing for this store and
  /// `T`, as `Any` so the hot path never needs `Optional<T>`.
  func capture<T>(_ key: Key, as type: T.Type, in context: ResolutionContext) -> Any? {
    guard let capture = context.keyCapture,
      capture.capturedKey == nil,
      capture.store == ObjectIdentifier(self),
      capture.valueType == ObjectIdentifier(T.self)
    else { return nil }
    context.keyCapture?.capturedKey = AnyHashable(key)
    return capture.placeholder()
  }

  /// The key discovered earlier for `alias`, without reading anything.
  package func discoveredKey(for alias: AnyHashable) -> Key? {
    lock.withLock { discoveredKeys[alias] }
  }
}
