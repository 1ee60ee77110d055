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
  ///   - request: what is being overridden, for the message that stops a
  ///     read that resolves anything but one key of this store.
  ///   - location: where the override was written, for that message.
  package func discoverKey<T>(
    alias: AnyHashable,
    request: @autoclosure () -> String,
    location: CodeLocation? = nil,
    placeholder: @escaping () -> T,
    read: () -> T
  ) -> Key? {
    if let known = discoveredKey(for: alias) { return known }
    let context = ResolutionContext.current
    let previous = context.keyCapture
    context.keyCapture = KeyCapture(
      store: ObjectIdentifier(self),
      valueType: ObjectIdentifier(T.self),
      request: request(),
      location: location,
      placeholder: placeholder
    )
    _ = read()
    let key = context.keyCapture?.capturedKey?.base as? Key
    context.keyCapture = previous
    if let key { lock.withLock { discoveredKeys[alias] = key } }
    return key
  }

  /// During ``discoverKey(alias:request:placeholder:read:)`` on this thread,
  /// records `key` and returns the placeholder; otherwise returns nil at once.
  @inline(__always)
  package func capturing<T>(_ key: Key, as type: T.Type) throws -> T? {
    guard let context = ResolutionContext.currentIfPresent, context.keyCapture != nil else { return nil }
    return try capture(key, as: T.self, in: context) as? T
  }

  /// The placeholder for `key` if this thread is capturing for this store and
  /// `T`, as `Any` so the hot path never needs `Optional<T>`.
  ///
  /// A capturing read must resolve exactly one key of the store being
  /// overridden, of the property's type, and nothing before it: anything
  /// else (a nested key path such as `\.service.network`, a property that
  /// resolves twice, one that forwards to another container) would install
  /// the override on the wrong dependency, so it throws
  /// ``MisdirectedOverride`` before anything is built.
  func capture<T>(_ key: Key, as type: T.Type, in context: ResolutionContext) throws -> Any? {
    guard let capture = context.keyCapture else { return nil }
    let isTarget = capture.store == ObjectIdentifier(self) && capture.valueType == ObjectIdentifier(T.self)
    guard capture.capturedKey == nil, isTarget else {
      throw MisdirectedOverride(
        request: capture.request,
        location: capture.location,
        resolved: "\(String(describing: key)) (\(TypeName.of(T.self)))",
        reason: capture.capturedKey != nil
          ? .resolvedTwice
          : capture.store == ObjectIdentifier(self) ? .otherDependency : .otherContainer
      )
    }
    capture.capturedKey = AnyHashable(key)
    // What the placeholder resolves itself is an ordinary resolution.
    context.keyCapture = nil
    defer { context.keyCapture = capture }
    return capture.placeholder()
  }

  /// The key discovered earlier for `alias`, without reading anything.
  package func discoveredKey(for alias: AnyHashable) -> Key? {
    lock.withLock { discoveredKeys[alias] }
  }
}

/// A key-path override whose property does not resolve exactly one
/// dependency of the container being overridden.
///
/// ```swift
/// container.override(\.service.network) { MockNetwork() }
/// // stops: reading the key path resolves `service` first
/// ```
package struct MisdirectedOverride: Error, CustomStringConvertible {
  package enum Reason: Sendable {
    /// The read resolved another dependency of the container first.
    case otherDependency
    /// The read resolved a dependency of another container first.
    case otherContainer
    /// The property resolved a second dependency after its own.
    case resolvedTwice
  }

  /// What was being overridden (container and key path type).
  package let request: String
  /// Where the override was written, when the dialect knows it.
  package let location: CodeLocation?
  /// The dependency the read resolved where it should not have.
  package let resolved: String
  package let reason: Reason

  package var description: String { diagnostic.description }

  package var diagnostic: ForgeDiagnostic {
    let what =
      switch reason {
      case .otherDependency:
        "reading the key path resolves \(resolved) first, another dependency of the container (a nested key path such as \\.service.network does this)"
      case .otherContainer:
        "reading the key path resolves \(resolved) in another container (the property forwards to it)"
      case .resolvedTwice:
        "the property resolves \(resolved) after its own dependency, so an override would replace only part of its value"
      }
    return ForgeDiagnostic(
      .overrideMisdirected,
      "Cannot override \(request): \(what)",
      reason: """
        Only a property that calls provide(...) once, directly on the container being \
        overridden, can be overridden.
        """,
      fix: """
        override that property itself (\\.network rather than \\.service.network), \
        override a forwarding property in the container that declares it, or give the \
        value its own provide property.
        """
    )
  }
}
