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
}
