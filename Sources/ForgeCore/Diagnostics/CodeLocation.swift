/// Where in the user's code something was declared or requested: a
/// `#fileID` and a `#line`, so that a stop points there and not into Forge.
///
/// ```swift
/// fatalError(message, file: location.fileID, line: location.line)
/// ```
@usableFromInline
package struct CodeLocation: Sendable {
  /// The file, as `#fileID` spells it (`MyApp/AuthContainer.swift`).
  @usableFromInline package let fileID: StaticString
  /// The line in that file.
  @usableFromInline package let line: UInt

  @usableFromInline package init(fileID: StaticString, line: UInt) {
    self.fileID = fileID
    self.line = line
  }

  /// A dependency object's name when its declaration gives none: its kind
  /// and type, and the file and line it is declared at, so that two of one
  /// type are told apart in messages and graphs.
  ///
  /// ```swift
  /// CodeLocation(fileID: #fileID, line: #line).defaultName("Provider", of: Int.self)
  /// // "Provider<Swift.Int> (AppProviders.swift:12)"
  /// ```
  package func defaultName(_ kind: String, of type: Any.Type) -> String {
    let path = "\(fileID)"
    let file = path.split(separator: "/").last.map(String.init) ?? path
    return "\(kind)<\(TypeName.of(type))> (\(file):\(line))"
  }
}

/// Where, and in whose words, a failure that cannot be thrown stops the
/// program: the dialect that names itself in the message, and the user's
/// declaration of what failed.
///
/// ```swift
/// StopSite(dialect: "SwiftPod", location: provider.location).stop(error)
/// // SwiftPodTests/Providers.swift:12: Fatal error: SwiftPod: [Forge.cycle] …
/// ```
package struct StopSite: Sendable {
  package let dialect: String
  package let location: CodeLocation?

  package init(dialect: String, location: CodeLocation?) {
    self.dialect = dialect
    self.location = location
  }

  /// ForgeCore's own, for a handle no dialect made.
  package static let engine = StopSite(dialect: "ForgeCore", location: nil)

  /// Stops with `error`'s diagnostic, at the declaration when known.
  package func stop(_ error: any Error) -> Never {
    stop(ForgeDiagnostic.of(error))
  }

  /// Stops with `diagnostic`, at the declaration when known.
  package func stop(_ diagnostic: ForgeDiagnostic) -> Never {
    let message = "\(dialect): \(diagnostic)"
    guard let location else { fatalError(message) }
    fatalError(message, file: location.fileID, line: location.line)
  }
}
