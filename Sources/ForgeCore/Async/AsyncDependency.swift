/// A dependency built by an `async` factory, as a container hands it out:
/// await ``value`` for the instance.
///
/// Resolving the dependency is synchronous and cheap; building it is not,
/// so the instance is read with `await`, and reading it from synchronous
/// code is a compile error. However many tasks await a dependency kept
/// (singleton, cached, custom-scoped, or weak while someone holds it) before
/// its first build ends, the factory runs once and none of them blocks a
/// thread while it waits.
///
/// ```swift
/// extension AppContainer {
///   var database: AsyncDependency<Database> {
///     provide(.singleton) { try await Database.open() }
///   }
/// }
///
/// let database = try await AppContainer.shared.database.value
/// ```
///
/// - A factory that throws keeps nothing: every task that awaited that build
///   receives the error, and the next read builds again.
/// - Cancelling a task that awaits ends its wait with `CancellationError`;
///   the build goes on for the others and its instance is kept. When the
///   last task awaiting it is cancelled, the build's task is cancelled too:
///   a factory that stops on cancellation keeps nothing, one that finishes
///   anyway is kept.
/// - A factory that awaits, directly or through other async dependencies on
///   any task, the dependency it builds throws ``DependencyCycleError`` with
///   the path.
/// - What the factory resolves, across its awaits, is recorded when its
///   build ends: graphs show those edges, and observers hear the build.
/// - Inside an override scope (Forge's `withOverrides`, ForgeTesting's
///   isolation) the instance is rebuilt for the scope when the scope's
///   overrides reach what the last build resolved (or before any build
///   ended), and kept with that scope, never in the container.
public struct AsyncDependency<Value: Sendable>: Sendable {
  /// What is kept: the instance, the build in flight, the scopes' builds.
  @usableFromInline let build: AsyncBuild<Value>
  /// The factory this handle was handed out with, when the kept part keeps
  /// none (Forge's: its factories capture the container, which keeps the
  /// handle, so keeping the factory too would keep both alive forever).
  @usableFromInline let supplied: Supplied?

  /// A factory a handle is handed out with. One field for both kinds: the
  /// handle then fits in registers, so a property that returns it (Forge's)
  /// writes and reads no memory for it on a hit.
  @usableFromInline
  enum Supplied: Sendable {
    case awaiting(@Sendable () async throws -> Value)
    /// A factory that does not await, kept as it is, so that a hit makes
    /// no closure.
    case synchronous(@Sendable () throws -> Value)

    /// The factory as an async one: a synchronous factory is wrapped here,
    /// when a build starts, not for every task that waits for one.
    var awaitable: @Sendable () async throws -> Value {
      switch self {
      case .awaiting(let factory): factory
      case .synchronous(let factory): { @Sendable in try factory() }
      }
    }
  }

  /// A handle whose instance `factory` builds.
  ///
  /// - Parameters:
  ///   - name: names the dependency in messages and in a cycle's path.
  ///   - identity: the dependency itself, the same for every handle of it
  ///     (each resolution of a transient one makes a handle).
  ///   - lifetime: how long the container keeps the instance; a weak one is
  ///     kept only while someone else holds it.
  ///   - factory: builds the instance; nil when every handle is handed out
  ///     with one (``supplying(_:)``).
  package init(
    name: String,
    identity: AnyHashable,
    lifetime: Lifetime,
    factory: (@Sendable () async throws -> Value)?
  ) {
    // Made by a slot's own build: its build records in that slot.
    build = AsyncBuild(
      name: name, identity: identity, holdsWeakly: lifetime == .weak,
      reporting: .forDependencyHandleMadeNow(lifetime: lifetime, identity: identity), factory: factory)
    self.supplied = nil
  }

  @usableFromInline
  init(build: AsyncBuild<Value>, supplied: Supplied?) {
    self.build = build
    self.supplied = supplied
  }

  /// This handle, building with `factory` when it builds and keeps no
  /// factory of its own.
  @inlinable
  package func supplying(_ factory: @escaping @Sendable () async throws -> Value) -> AsyncDependency {
    AsyncDependency(build: build, supplied: .awaiting(factory))
  }

  /// This handle, building with `factory`, which does not await.
  @inlinable
  package func supplying(sync factory: @escaping @Sendable () throws -> Value) -> AsyncDependency {
    AsyncDependency(build: build, supplied: .synchronous(factory))
  }

  /// The instance, built by the dependency's factory the first time it is
  /// awaited (or every time, for a transient one).
  ///
  /// Runs on the caller's executor: a kept instance is read there, with no
  /// executor switch and no suspension; only a wait for a build suspends.
  ///
  /// ```swift
  /// let database = try await container.database.value
  /// ```
  @inlinable @inline(__always)
  nonisolated(nonsending) public var value: Value {
    get async throws {
      // Inlinable: a hit is two loads in the caller, with no async frame.
      if Gates.isClearForThisTask, let value = build.publishedValue() { return value }
      return try await unpublishedValue()
    }
  }

  /// The instance ``value`` would return at once, without awaiting: the
  /// published one, when nothing that task-locals carry (an override scope,
  /// a recording build, a validation) can apply to the calling task
  /// (``Gates/isClearForThisTask``). For a dialect's async
  /// entry point, which then awaits ``unpublishedValue()`` only on a miss:
  /// awaiting ``value`` itself after other work costs the caller a second
  /// hop to the generic executor on every hit.
  ///
  /// ```swift
  /// if let value = handle.publishedValue { return value }
  /// return try await handle.unpublishedValue()
  /// ```
  @inlinable @inline(__always)
  package var publishedValue: Value? {
    Gates.isClearForThisTask ? build.publishedValue() : nil
  }

  /// ``value`` past the hit: in an override scope, being built, weak, or
  /// not built yet.
  @usableFromInline
  nonisolated(nonsending) package func unpublishedValue() async throws -> Value {
    // The factory is handed on as it is: a synchronous one is wrapped only
    // if a build starts (``Supplied/awaitable``).
    if Gates.activeOverrideScopes.value != 0, let scope = OverrideScope.current {
      return try await build.build(in: scope).value(supplying: supplied)
    }
    return try await build.value(supplying: supplied)
  }
}

extension AsyncDependency: AsyncBuiltHandle {
  package static var instanceType: Any.Type { Value.self }
}

extension AsyncDependency: AsyncKeptInstance {
  package var keptForShutdown: (sequence: Int, instance: Any)? { build.keptForShutdown }
  package var hasBuildInProgress: Bool { build.hasBuildInProgress }
  /// How many tasks wait for the build in progress.
  package var waiterCount: Int { build.waiterCount }
  package func buildInProgressEnded() async { await build.buildInProgressEnded() }
}

/// The identity of an async dependency across the handles made for it: its
/// container's store and its key there.
package struct AsyncDependencyIdentity: Hashable, @unchecked Sendable {
  // @unchecked: `key` wraps a store's key type, which is Sendable.
  let store: ObjectIdentifier
  let key: AnyHashable
  /// The store itself, whose observers hear of the builds; not part of
  /// the identity.
  weak var host: (any AsyncBuildHost)?

  package init<Key: SlotKey>(store: SlotStore<Key>, key: Key) {
    self.store = ObjectIdentifier(store)
    self.key = AnyHashable(key)
    self.host = store
  }

  package static func == (lhs: Self, rhs: Self) -> Bool { lhs.store == rhs.store && lhs.key == rhs.key }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(store)
    hasher.combine(key)
  }
}

extension SlotStore {
  /// The instance published by the async handle kept for `bits`, read in
  /// place, without copying the handle out (its fields would be retained
  /// and released): the start of a dialect's async hit. Nil when the
  /// lock-free read does not apply (no such handle in the table, an
  /// override may apply, a build in progress on this thread records what it
  /// resolves) or nothing is published yet; the caller then resolves the
  /// handle and awaits it.
  ///
  /// `bits` are a key under which only `AsyncDependency<V>` handles live
  /// (ForgeInject's async key of `V`): the read does not compare the
  /// slot's type (``typedEntry(bits:as:comparingType:in:section:)``).
  ///
  /// ```swift
  /// if let value = store.publishedAsyncValue(bits: key.identityBits, as: Database.self) { return value }
  /// ```
  @inlinable @inline(__always)
  package func publishedAsyncValue<V: Sendable>(bits: SlotKeyBits?, as type: V.Type) -> V? {
    beginPublishedRead(bits: bits, as: AsyncDependency<V>.self, comparingType: false)?.takeAsyncPublished(V.self)
  }
}

extension PublishedRead {
  /// The instance published by the async handle this read found, read in
  /// place (the handle is not copied out); ends the read.
  ///
  /// ```swift
  /// beginPublishedRead(bits: bits, as: AsyncDependency<V>.self, comparingType: false)?.takeAsyncPublished(V.self)
  /// ```
  @inlinable @inline(__always)
  package func takeAsyncPublished<V: Sendable>(_ type: V.Type) -> V? {
    // The read checked the gates already: the build's published instance,
    // without ``AsyncDependency/publishedValue``'s second check, which asks
    // the task again while another task's async build runs. Nothing
    // published ends the read on a branch of its own, so that the copy's
    // branch tests nothing after it (1 instruction a hit).
    let published = withBorrowed(\AsyncDependency<V>.build) { $0.publishedBox() }
    guard let published else {
      end()
      return nil
    }
    defer { end() }
    // Borrowed: the build keeps it, and the read keeps the build.
    return published._withUnsafeGuaranteedRef { $0.value }
  }
}

extension SlotStore where Key == IdentityKey {
  /// A handle of the async dependency kept under `key` in this store, whose
  /// instance `factory` builds with `owner` (the SwiftPod or Fetcher that
  /// owns the store).
  ///
  /// The factory reaches `owner` weakly, as the handle lives in its store:
  /// once `owner` is gone, nobody is left to use the instance and a build
  /// ends with `CancellationError`.
  package func asyncHandle<Owner: AnyObject & Sendable, T>(
    key: IdentityKey,
    name: String,
    lifetime: Lifetime,
    owner: Owner,
    factory: @escaping @Sendable (Owner) async throws -> T
  ) -> AsyncDependency<T> {
    AsyncDependency(name: name, identity: AsyncDependencyIdentity(store: self, key: key), lifetime: lifetime) {
      [weak owner] in
      guard let owner else { throw CancellationError() }
      return try await factory(owner)
    }
  }
}

extension Lifetime {
  /// The lifetime of the handle of an async dependency with this lifetime:
  /// a weak one's handle is kept, and holds its instance weakly.
  @inlinable
  package var ofAsyncHandle: Lifetime { self == .weak ? .cached : self }
}

/// A handle whose instance an asynchronous validation awaits, so that the
/// factory behind it is checked too.
package protocol ValidationAwaitable: Sendable {
  /// Awaits the instance, building it as the handle builds it.
  func awaitForValidation() async throws
}

extension AsyncDependency: ValidationAwaitable {
  package func awaitForValidation() async throws {
    _ = try await value
  }
}
