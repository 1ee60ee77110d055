import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Inject var x: T`: a getter over per-instance storage that resolves once.
public struct InjectMacro: AccessorMacro, PeerMacro {
  struct Property {
    let name: String
    let type: TypeSyntax
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let property = validate(node, declaration, context: nil) else { return [] }
    return ["get { _\(raw: property.name).value }"]
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let property = validate(node, declaration, context: context) else { return [] }
    let site = [context.enclosingTypeName, property.name].compactMap { $0 }.joined(separator: ".")
    return [
      """
      private let _\(raw: property.name) = ForgeInject.InjectedDependency<\(property.type.trimmed)>(\
      "\(raw: site)", lazy: \(raw: lazyArgument(of: node)), \(raw: context.locationArguments(of: declaration)))
      """
    ]
  }

  /// `lazy:`'s expression as written; `true` when absent.
  static func lazyArgument(of node: AttributeSyntax) -> String {
    guard case .argumentList(let arguments) = node.arguments,
      let argument = arguments.first(where: { $0.label?.text == "lazy" })
    else { return "true" }
    return argument.expression.trimmedDescription
  }

  /// The property `@Inject` can expand, or nil after diagnosing why not.
  /// Only the peer expansion passes a context, so each problem is reported once.
  static func validate(
    _ node: AttributeSyntax,
    _ declaration: some DeclSyntaxProtocol,
    context: (any MacroExpansionContext)?
  ) -> Property? {
    func fail(_ message: ForgeInjectDiagnostic, at target: some SyntaxProtocol, fixIt: FixIt? = nil) -> Property? {
      context?.diagnose(Diagnostic(node: target, message: message, fixIts: fixIt.map { [$0] } ?? []))
      return nil
    }
    guard let variable = declaration.as(VariableDeclSyntax.self) else {
      return fail(.injectNotAVariable, at: node, fixIt: .removing(node, name: "@Inject"))
    }
    guard variable.bindings.count == 1, let binding = variable.bindings.first,
      let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
    else {
      return fail(.injectMultipleBindings, at: variable.bindings)
    }
    if variable.modifiers.isStatic {
      return fail(.injectStatic, at: node, fixIt: .removing(node, name: "@Inject"))
    }
    if binding.accessorBlock != nil {
      return fail(.injectOnComputed, at: node, fixIt: .removing(node, name: "@Inject"))
    }
    if variable.bindingSpecifier.tokenKind == .keyword(.let) {
      let fixIt = FixIt(
        message: ForgeInjectFixIt.replaceLetWithVar,
        changes: [
          .replace(
            oldNode: Syntax(variable.bindingSpecifier),
            newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
        ])
      return fail(.injectOnLet, at: variable.bindingSpecifier, fixIt: fixIt)
    }
    if let initializer = binding.initializer {
      var withoutValue = binding
      withoutValue.initializer = nil
      if let type = withoutValue.typeAnnotation {
        withoutValue.typeAnnotation = type.with(\.trailingTrivia, [])
      }
      let fixIt = FixIt(
        message: ForgeInjectFixIt.removeInitialValue,
        changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(withoutValue))])
      return fail(.injectInitialValue, at: initializer, fixIt: fixIt)
    }
    guard let type = binding.typeAnnotation?.type else {
      return fail(.injectMissingType(pattern.identifier.text), at: binding, fixIt: .addingTypeAnnotation(to: binding))
    }
    return Property(name: pattern.identifier.text, type: type)
  }
}
