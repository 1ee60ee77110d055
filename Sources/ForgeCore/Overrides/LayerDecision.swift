/// Which layer serves a resolution, decided in one place.
///
/// First match wins:
/// 1. an override of the key in the task's override scope (the innermost
///    scope that declares one);
/// 2. a container-wide override of the key;
/// 3. the preview factory, when the dialect asks for one;
/// 4. the key's own factory, whose instance is kept in the innermost scope
///    that overrides something it was built from, or in the container when
///    no scope does.
///
/// An override of X, scoped or container-wide, and X's preview factory
/// therefore always beat an instance built by X's own factory, wherever
/// that instance is kept.
///
/// ```swift
/// let layer = Layer.decide(
///   scopedOverrideDepth: scope?.overrideOfTarget(slot.target)?.depth,
///   hasContainerOverride: containerOverride != nil,
///   servesPreview: false,
///   isKept: lifetime.isStored,
///   reachDepth: { scope?.reachDepth(from: slot) ?? 0 }
/// )
/// ```
package enum Layer: Equatable, Sendable {
  /// The task's scope overrides the key, in the scope at `depth`.
  case scopedOverride(depth: Int)
  /// The container-wide override.
  case containerOverride
  /// The preview factory; its instance is never kept.
  case preview
  /// The key's own factory; a kept instance lives in the scope at
  /// `keptAtDepth`, or in the container when it is 0.
  case ownFactory(keptAtDepth: Int)

  /// The layer for a resolution.
  ///
  /// - Parameters:
  ///   - scopedOverrideDepth: the depth of the innermost scope overriding
  ///     the key, nil when none does (or no scope is active).
  ///   - hasContainerOverride: whether a container-wide override is installed.
  ///   - servesPreview: whether the dialect asks for the preview factory.
  ///   - isKept: whether the own factory's instances are kept at all.
  ///   - reachDepth: the depth of the innermost scope overriding something
  ///     the own factory's instance is built from (0: none); asked only
  ///     when the own factory serves a kept instance.
  package static func decide(
    scopedOverrideDepth: Int?,
    hasContainerOverride: Bool,
    servesPreview: Bool,
    isKept: Bool,
    reachDepth: () -> Int
  ) -> Layer {
    if let scopedOverrideDepth { return .scopedOverride(depth: scopedOverrideDepth) }
    if hasContainerOverride { return .containerOverride }
    if servesPreview { return .preview }
    return .ownFactory(keptAtDepth: isKept ? reachDepth() : 0)
  }
}
