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
  /// Reports what the generated initialiser could not initialise: a stored
  /// `var` without an initial value, and a `let` of a plain value type.
  static func storedDependencies(
    of declaration: some DeclGroupSyntax,
    in context: some MacroExpansionContext
  ) -> [Dependency] {
    var dependencies: [Dependency] = []
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.modifiers.isStatic else { continue }
      if variable.bindingSpecifier.tokenKind == .keyword(.var) {
        diagnoseUninitialisedVars(variable, in: context)
        continue
      }
      guard variable.bindingSpecifier.tokenKind == .keyword(.let) else { continue }
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
        if isPlainValue(type) {
          context.diagnose(
            Diagnostic(
              node: binding,
              message: ForgeInjectDiagnostic.injectablePlainValue(pattern.identifier.text, type.trimmedDescription),
              fixIt: .addingInitialValue(to: binding)
            ))
          continue
        }
        dependencies.append(Dependency(name: pattern.identifier.text, type: type, node: binding))
      }
    }
    return dependencies
  }

  /// A stored `var` that nothing initialises: no initial value, not
  /// optional, no attribute (`@Inject`, a property wrapper) that takes care
  /// of it, and no getter.
  static func diagnoseUninitialisedVars(_ variable: VariableDeclSyntax, in context: some MacroExpansionContext) {
    guard variable.attributes.isEmpty, !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) })
    else { return }
    for binding in variable.bindings {
      guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self), binding.initializer == nil,
        let type = binding.typeAnnotation?.type, !isOptional(type)
      else { continue }
      if let accessors = binding.accessorBlock {
        // Observers keep it stored; a getter makes it computed.
        guard case .accessors(let list) = accessors.accessors,
          list.allSatisfy({ [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) })
        else { continue }
      }
      context.diagnose(
        Diagnostic(
          node: binding,
          message: ForgeInjectDiagnostic.injectableVarWithoutValue(pattern.identifier.text),
          fixIt: .addingInitialValue(to: binding)
        ))
    }
  }

  /// `Int`, `String`, `Bool` and the standard library's other plain values,
  /// optional or not: never a registered dependency.
  static func isPlainValue(_ type: TypeSyntax) -> Bool {
    var name = type.trimmedDescription
    while name.hasSuffix("?") || name.hasSuffix("!") { name.removeLast() }
    if name.hasPrefix("Swift.") { name.removeFirst("Swift.".count) }
    return plainValueTypes.contains(name)
  }

  static let plainValueTypes: Set<String> = [
    "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
    "Float", "Double", "String", "Substring", "Character",
  ]

  static func isOptional(_ type: TypeSyntax) -> Bool {
    type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
      || type.as(IdentifierTypeSyntax.self)?.name.text == "Optional"
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
