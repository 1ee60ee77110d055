import ForgeCore

/// Stands in for a dependency that this container cannot build itself, and
/// stops the program with a message if it is ever resolved without an override.
///
/// Use it for a feature module's proxy that the composition root wires, and
/// in test containers so that anything a test forgot to override fails loudly:
///
/// ```swift
/// var analytics: any AnalyticsProtocol {
///   provide(.singleton) { unimplemented("analytics") } preview: { MockAnalytics() }
/// }
/// ```
public func unimplemented<T>(_ name: String, file: StaticString = #fileID, line: UInt = #line) -> T {
  let context = ResolutionContext.currentIfPresent
  // Inside `provide { unimplemented(…) }` the factory returns `Any`, so `T`
  // says nothing: the slot being built knows the property's type.
  let typeName =
    T.self == Any.self
    ? context?.buildingSlots.last?.valueTypeName ?? TypeName.of(T.self)
    : TypeName.of(T.self)
  let diagnostic = ForgeDiagnostic(
    .unimplemented,
    "unimplemented dependency \"\(name)\" (\(typeName)) was resolved",
    chain: context?.chain ?? [],
    reason: "It has no implementation in this container and nothing overrode it.",
    fix: """
      override "\(name)" before it is resolved: from the composition root \
      (container.override(\\.\(name)) { … }), or in a test \
      (container.withOverrides { $0.override(\\.\(name)) { … } } run: { … }).
      """
  )
  ValidationSession.failIfValidating(DiagnosedFailure(diagnostic))
  fatalError("Forge: \(diagnostic)", file: file, line: line)
}
