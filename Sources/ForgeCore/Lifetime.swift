/// How long an instance built by the engine is kept.
///
/// Each dialect maps its own vocabulary onto these: Forge's `Scope`,
/// ForgeInject's `ForgeRetainPolicy`, SwiftPod's `ProviderScope`s.
@usableFromInline package enum Lifetime: Hashable, Sendable {
  /// Built on every resolution; never stored.
  case transient
  /// Built once, kept as long as the container.
  case singleton
  /// Built once, kept until a reset clears cached instances.
  case cached
  /// Shared while anyone holds a strong reference; rebuilt after that.
  /// Values that are not class instances cannot be held weakly and are
  /// built on every resolution instead.
  case weak
  /// Built once, kept until the named custom scope is cleared.
  case scoped(ObjectIdentifier)

  /// Whether instances with this lifetime are stored at all.
  @inlinable
  package var isStored: Bool { self != .transient }
}
