import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#inject()`: resolves the type the surrounding expression expects.
public struct InjectExpressionMacro: ExpressionMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax,
    in context: some MacroExpansionContext
  ) throws -> ExprSyntax {
    if !node.arguments.isEmpty || node.trailingClosure != nil {
      var bare = node.arguments
      bare = []
      context.diagnose(
        Diagnostic(
          node: node.arguments.isEmpty ? Syntax(node) : Syntax(node.arguments),
          message: ForgeInjectDiagnostic.injectExpressionArguments,
          fixIt: FixIt(
            message: ForgeInjectFixIt.removeArguments,
            changes: [.replace(oldNode: Syntax(node.arguments), newNode: Syntax(bare))])
        ))
    }
    let site = ["#inject()", context.enclosingTypeName.map { "in \($0)" }].compactMap { $0 }.joined(separator: " ")
    return "ForgeInject.ForgeInjection.resolve(\(literal: site), \(raw: context.locationArguments(of: node)))"
  }
}
