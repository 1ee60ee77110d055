/// Learning which key an accessor resolves, without knowing how it is written
/// and without running anything the user wrote for it.
///
/// Forge identifies overrides by key path (`override(\.authService)`), but a
/// property resolves by its `#function` key. Rather than parse the key path's
/// description (which names the property on Apple platforms only), the store
/// reads the property in capture mode, on a thread of its own: the dialect's
/// resolve entry point sees the capture, records its key and parks the read
/// there (``ParkedKeyRead``), since it has no value to return that nobody's
/// factory built. Neither the real factory nor the override's runs for it.
/// The first resolution the override serves hands its value to the parked
/// read, which finishes the property: a property that resolves anything
/// more stops there (``MisdirectedOverride``), before that resolution
/// returns. The key is remembered per store and alias (the key path); the
/// read, once per `readAlias` in the process.
extension SlotStore {
  /// The key that `read` resolves in this store, discovered once per
  /// `alias`, and the parked read that the override's first value must
  /// finish (``ParkedKeyRead/resume(with:)``), while it waits for one.
  ///
  /// - Parameters:
  ///   - alias: what identifies the accessor in this store (a key path),
  ///     for the memo.
  ///   - readAlias: what identifies the accessor in the process (a key path
  ///     and the container's type): one read per value, whatever the store.
  ///   - request: what is being overridden, for the message that stops a
  ///     read that resolves anything but one key of this store.
  ///   - location: where the override was written, for that message.
  ///   - read: reads the accessor; runs on a thread of its own.
  package func discoverKey<T>(
    alias: AnyHashable,
    readAlias: AnyHashable,
    request: @autoclosure () -> String,
    location: CodeLocation? = nil,
    as type: T.Type,
    read: @escaping @Sendable () -> T
  ) -> (key: Key, parked: ParkedKeyRead?)? {
    let (parked, isNew) = ParkedKeyRead.entry(for: readAlias)
    if isNew {
      let capture = KeyCapture(
        store: ObjectIdentifier(self),
        valueType: ObjectIdentifier(T.self),
        request: request(),
        location: location,
        placeholder: { parked.park(key: $0) }
      )
      // The read keeps this store's owner alive while it is parked.
      DetachedThread.start(purpose: "key-path read") {
        let context = ResolutionContext.current
        context.keyCapture = capture
        _ = read()
        context.keyCapture = nil
        parked.finish(key: capture.capturedKey)
      }
    }
    guard let key = parked.awaitKey()?.base as? Key else { return nil }
    lock.withLock { discoveredKeys[alias] = key }
    return (key, parked.isWaiting ? parked : nil)
  }

  /// During ``discoverKey(alias:readAlias:request:location:as:read:)`` on this thread,
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
    let captured = AnyHashable(key)
    capture.capturedKey = captured
    context.keyCapture = nil
    defer { context.keyCapture = capture }
    return capture.placeholder(captured)
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

/// A read of an overridden property, parked on its thread at the `provide`
/// call whose key it was reading for, until the override's first value lets
/// it finish.
///
/// Reading the property needs a value where `provide` returns; the only
/// ones that exist without running someone's code are those the override
/// builds later, for a caller that asked. So the read waits for the first of
/// them: ``resume(with:)``, called by whoever the override first serves,
/// hands it over and waits while the property finishes (it may only return
/// it; resolving anything more stops the process with the property's
/// misdirected override), then returns. A read whose override is never
/// resolved stays parked, with the container it read, for the life of the
/// process: one per key path and container type.
@usableFromInline package final class ParkedKeyRead: @unchecked Sendable {
  // @unchecked: every mutable field is guarded by `lock`; `settled` is atomic.
  private enum Phase {
    case reading
    case parked
    case finished
  }
  private let lock = ConditionLock()
  private var phase = Phase.reading
  private var key: AnyHashable?
  private var handed: Any?
  /// 1 once nothing waits for a value: read without the lock by
  /// ``isWaiting``, on every resolution an override that carries this read
  /// serves.
  private let settled = AtomicCounter()
  /// Stores sending every read to the general path until the read
  /// finishes or the override that holds each goes (see
  /// ``holdGeneralPath(of:for:)``), held strongly for no longer than that:
  /// a weak reference would leave a side table on a store that lives for
  /// the process.
  private var hosts: [(host: any ParkedReadHost, override: ObjectIdentifier)] = []

  /// Every read started in the process, by what it reads. Unsafe only
  /// because `AnyHashable` is not `Sendable`: the keys are key paths and
  /// type identities, and the lock guards the table.
  nonisolated(unsafe) private static let reads = LockedValue<[AnyHashable: ParkedKeyRead]>([:])

  /// The read of `alias`, and whether it is new (the caller starts it).
  static func entry(for alias: AnyHashable) -> (read: ParkedKeyRead, isNew: Bool) {
    reads.withValue { reads in
      if let known = reads[alias] { return (known, false) }
      let read = ParkedKeyRead()
      reads[alias] = read
      return (read, true)
    }
  }

  /// Whether the read still waits for a value.
  package var isWaiting: Bool { settled.value == 0 }

  /// On the read's thread, at the `provide` that recorded `key`: parks
  /// until a value is handed over, and returns it.
  func park(key: AnyHashable) -> Any {
    lock.lock()
    defer { lock.unlock() }
    self.key = key
    phase = .parked
    lock.broadcast()
    while handed == nil { lock.wait() }
    return handed!
  }

  /// On the read's thread, once the property returned, with the key it
  /// recorded (nil when it never called `provide` on the store).
  func finish(key: AnyHashable?) {
    // Released after unlocking: the last reference to a store may go with
    // it, and its overrides' deinits take this lock.
    var held: [(host: any ParkedReadHost, override: ObjectIdentifier)] = []
    lock.withLock {
      if self.key == nil { self.key = key }
      phase = .finished
      // Before anyone waiting for the end learns of it (each is an atomic
      // add, no lock).
      _ = settled.add(1)
      for entry in hosts { entry.host.generalPathEnded() }
      swap(&held, &hosts)
      lock.broadcast()
    }
    withExtendedLifetime(held) {}
  }

  /// Sends every read of `host` to its general path, which hands an
  /// override's value over, until this read finishes or `override` goes,
  /// whichever comes first; does nothing once the read has finished. The
  /// lock-free fronts then never ask whether a read is parked.
  func holdGeneralPath(of host: any ParkedReadHost, for override: AnyOverride) {
    lock.withLock {
      guard phase != .finished else { return }
      hosts.append((host, ObjectIdentifier(override)))
      host.generalPathBegan()
    }
  }

  /// `override`, made while this read was parked, is going: the store it
  /// held on the general path goes back, if the read has not finished.
  func releaseGeneralPath(for override: ObjectIdentifier) {
    let released = lock.withLock { () -> (any ParkedReadHost)? in
      guard let index = hosts.firstIndex(where: { $0.override == override }) else { return nil }
      return hosts.remove(at: index).host
    }
    released?.generalPathEnded()
  }

  /// The key the read recorded, once it parked or finished.
  func awaitKey() -> AnyHashable? {
    lock.lock()
    defer { lock.unlock() }
    while phase == .reading { lock.wait() }
    return key
  }

  /// Hands `value`, the override's first, to the parked read and waits
  /// until the property has finished with it; does nothing once the read
  /// finished. A property that resolves more than its own dependency stops
  /// the process before this returns.
  @usableFromInline package func resume(with value: Any) {
    guard isWaiting else { return }
    lock.lock()
    defer { lock.unlock() }
    guard phase == .parked else { return }
    if handed == nil {
      handed = value
      lock.broadcast()
    }
    while phase != .finished { lock.wait() }
  }
}

/// A store that a parked key-path read sends to its general path.
package protocol ParkedReadHost: AnyObject {
  func generalPathBegan()
  func generalPathEnded()
}
