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
    return "\(kind)<\(String(reflecting: type))> (\(file):\(line))"
  }
}
