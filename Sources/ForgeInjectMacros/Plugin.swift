import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct ForgeInjectMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    InjectableMacro.self,
    InjectMacro.self,
    InjectExpressionMacro.self,
  ]
}
