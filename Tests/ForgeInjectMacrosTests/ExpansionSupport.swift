import ForgeInjectMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, configured once for every suite.
let forgeInjectMacros: [String: MacroSpec] = [
  "Injectable": MacroSpec(type: InjectableMacro.self),
  "Inject": MacroSpec(type: InjectMacro.self),
  "inject": MacroSpec(type: InjectExpressionMacro.self),
]

/// `assertMacroExpansion`, reporting through Swift Testing.
func assertExpansion(
  _ source: String,
  expandedSource: String,
  diagnostics: [DiagnosticSpec] = [],
  applyFixIts: [String]? = nil,
  fixedSource: String? = nil,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  assertMacroExpansion(
    source,
    expandedSource: expandedSource,
    diagnostics: diagnostics,
    macroSpecs: forgeInjectMacros,
    applyFixIts: applyFixIts,
    fixedSource: fixedSource,
    indentationWidth: .spaces(2),
    failureHandler: { failure in
      Issue.record(
        Comment(rawValue: failure.message),
        sourceLocation: SourceLocation(
          fileID: String(describing: failure.location.fileID),
          filePath: String(describing: failure.location.filePath),
          line: failure.location.line,
          column: failure.location.column
        )
      )
    },
    fileID: fileID,
    filePath: filePath,
    line: line,
    column: column
  )
}
