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
    guard let property = validate(node, declaration, in: context, reportsProblems: false) else { return [] }
    return ["get { _\(raw: property.name).value }"]
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let property = validate(node, declaration, in: context, reportsProblems: true) else { return [] }
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
  /// Only the peer expansion reports problems, so each is reported once.
  static func validate(
    _ node: AttributeSyntax,
    _ declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext,
    reportsProblems: Bool
  ) -> Property? {
    func fail(_ message: ForgeInjectDiagnostic, at target: some SyntaxProtocol, fixIt: FixIt? = nil) -> Property? {
      if reportsProblems {
        context.diagnose(Diagnostic(node: target, message: message, fixIts: fixIt.map { [$0] } ?? []))
      }
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
    if let problem = observationProblem(of: variable, inject: node, context: context) {
      return fail(problem.message, at: node, fixIt: problem.fixIt)
    }
    return Property(name: pattern.identifier.text, type: type)
  }

  /// Inside an `@Observable` type, `@Inject` must be followed by
  /// `@ObservationIgnored`: without it, `@Observable` adds accessors of its
  /// own; before it, Swift rejects `@Inject`'s getter.
  static func observationProblem(
    of variable: VariableDeclSyntax,
    inject node: AttributeSyntax,
    context: some MacroExpansionContext
  ) -> (message: ForgeInjectDiagnostic, fixIt: FixIt)? {
    func isNamed(_ name: String) -> (AttributeListSyntax.Element) -> Bool {
      { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription.hasSuffix(name) == true }
    }
    // By name: the compiler may hand the macro its attribute as a node of
    // another tree than the declaration's.
    guard let injectIndex = variable.attributes.firstIndex(where: isNamed(node.attributeName.trimmedDescription)) else {
      return nil
    }
    var attributes = variable.attributes
    if let ignoredIndex = attributes.firstIndex(where: isNamed("ObservationIgnored")) {
      guard ignoredIndex < injectIndex else { return nil }
      // Swap the two, each keeping the other's place and spacing.
      let ignored = attributes[ignoredIndex]
      let inject = attributes[injectIndex]
      attributes[ignoredIndex] = inject.with(\.leadingTrivia, ignored.leadingTrivia)
        .with(\.trailingTrivia, ignored.trailingTrivia)
      attributes[injectIndex] = ignored.with(\.leadingTrivia, inject.leadingTrivia)
        .with(\.trailingTrivia, inject.trailingTrivia)
      let fixIt = FixIt(
        message: ForgeInjectFixIt.moveInjectFirst,
        changes: [.replace(oldNode: Syntax(variable.attributes), newNode: Syntax(attributes))]
      )
      return (.injectAfterObservationIgnored, fixIt)
    }
    let insideObservable =
      attributes.contains(where: isNamed("ObservationTracked")) || context.enclosingTypeIsObservable
    guard insideObservable else { return nil }
    let inject = attributes[injectIndex]
    let ignored = AttributeSyntax(attributeName: IdentifierTypeSyntax(name: .identifier("ObservationIgnored")))
      .with(\.trailingTrivia, inject.trailingTrivia)
    attributes[injectIndex] = inject.with(\.trailingTrivia, .space)
    attributes.insert(.attribute(ignored), at: attributes.index(after: injectIndex))
    let fixIt = FixIt(
      message: ForgeInjectFixIt.addObservationIgnored,
      changes: [.replace(oldNode: Syntax(variable.attributes), newNode: Syntax(attributes))]
    )
    return (.injectObservableNeedsIgnored, fixIt)
  }
}
