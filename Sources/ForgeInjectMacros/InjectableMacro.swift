import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Injectable`: an initialiser whose parameters default to resolution.
public struct InjectableMacro: MemberMacro {
  struct Dependency {
    let name: String
    let type: TypeSyntax
    let node: PatternBindingSyntax
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    let typeName: String
    if let decl = declaration.as(ClassDeclSyntax.self) {
      typeName = decl.name.text
    } else if let decl = declaration.as(StructDeclSyntax.self) {
      typeName = decl.name.text
    } else if let decl = declaration.as(ActorDeclSyntax.self) {
      typeName = decl.name.text
    } else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: ForgeInjectDiagnostic.injectableUnsupportedType(kindDescription(of: declaration)),
          fixIt: .removing(node, name: "@Injectable")
        ))
      return []
    }

    let dependencies = storedDependencies(of: declaration, in: context)
    let access = accessLevel(of: declaration)
    guard !dependencies.isEmpty else {
      return ["\(raw: access)init() {}"]
    }
    let parameters = dependencies.map { dependency in
      let escaping = isFunctionType(dependency.type) ? "@escaping " : ""
      let site = "\(typeName).\(dependency.name)"
      return """
          \(dependency.name): \(escaping)\(dependency.type.trimmedDescription) = \
        ForgeInject.ForgeInjection.resolve("\(site)", \(context.locationArguments(of: dependency.node)))
        """
    }
    let assignments = dependencies.map { "  self.\($0.name) = \($0.name)" }
    let decl: DeclSyntax = """
      \(raw: access)init(
      \(raw: parameters.joined(separator: ",\n"))
      ) {
      \(raw: assignments.joined(separator: "\n"))
      }
      """
    return [decl]
  }

  /// Stored `let`s with a type annotation, no initial value, not static.
  static func storedDependencies(
    of declaration: some DeclGroupSyntax,
    in context: some MacroExpansionContext
  ) -> [Dependency] {
    var dependencies: [Dependency] = []
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self),
        variable.bindingSpecifier.tokenKind == .keyword(.let),
        !variable.modifiers.isStatic
      else { continue }
      let bindings = Array(variable.bindings)
      for (index, binding) in bindings.enumerated() {
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self),
          binding.initializer == nil, binding.accessorBlock == nil
        else { continue }
        // `let a, b: Int` gives `a` the type written after `b`.
        let type = bindings[index...].lazy.compactMap { $0.initializer == nil ? $0.typeAnnotation?.type : nil }.first
        guard let type else {
          context.diagnose(
            Diagnostic(
              node: binding,
              message: ForgeInjectDiagnostic.injectableMissingType(pattern.identifier.text),
              fixIt: .addingTypeAnnotation(to: binding)
            ))
          continue
        }
        dependencies.append(Dependency(name: pattern.identifier.text, type: type, node: binding))
      }
    }
    return dependencies
  }

  static func accessLevel(of declaration: some DeclGroupSyntax) -> String {
    for modifier in declaration.modifiers {
      switch modifier.name.tokenKind {
      case .keyword(.public), .keyword(.open): return "public "
      case .keyword(.package): return "package "
      default: continue
      }
    }
    return ""
  }

  static func isFunctionType(_ type: TypeSyntax) -> Bool {
    if type.is(FunctionTypeSyntax.self) { return true }
    if let attributed = type.as(AttributedTypeSyntax.self) { return isFunctionType(attributed.baseType) }
    if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first {
      return isFunctionType(only.type)
    }
    return false
  }

  static func kindDescription(of declaration: some DeclGroupSyntax) -> String {
    if declaration.is(EnumDeclSyntax.self) { return "an enum" }
    if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
    if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
    return "this declaration"
  }
}
