import SwiftDiagnostics
import SwiftSyntax

/// Every diagnostic the ForgeInject macros emit, with a stable ID.
struct ForgeInjectDiagnostic: DiagnosticMessage {
  enum ID: String {
    case injectableUnsupportedType
    case injectableMissingType
    case injectableVarWithoutValue
    case injectablePlainValue
    case injectNotAVariable
    case injectOnLet
    case injectOnComputed
    case injectMissingType
    case injectInitialValue
    case injectMultipleBindings
    case injectStatic
    case injectExpressionArguments
    case injectObservableNeedsIgnored
    case injectAfterObservationIgnored
  }

  let id: ID
  let message: String
  var severity: DiagnosticSeverity { .error }
  var diagnosticID: MessageID { MessageID(domain: "ForgeInjectMacros", id: id.rawValue) }

  static func injectableUnsupportedType(_ kind: String) -> Self {
    Self(
      id: .injectableUnsupportedType,
      message: "'@Injectable' applies to a class, struct or actor, not to \(kind)")
  }

  static func injectableMissingType(_ name: String) -> Self {
    Self(
      id: .injectableMissingType,
      message: "'@Injectable' needs the type of '\(name)' to resolve it; add a type annotation")
  }

  static func injectableVarWithoutValue(_ name: String) -> Self {
    Self(
      id: .injectableVarWithoutValue,
      message: """
        '@Injectable' injects stored 'let's only; give 'var \(name)' an initial value, \
        or make it a 'let' to inject it
        """)
  }

  static func injectablePlainValue(_ name: String, _ type: String) -> Self {
    Self(
      id: .injectablePlainValue,
      message: """
        '@Injectable' would resolve '\(name): \(type)' from the container, but a plain \
        value is not a dependency; give it an initial value, or write the initialiser yourself
        """)
  }

  static let injectNotAVariable = Self(
    id: .injectNotAVariable, message: "'@Inject' applies to a stored 'var' property")
  static let injectOnLet = Self(
    id: .injectOnLet, message: "'@Inject' needs a 'var': the macro turns the property into a getter")
  static let injectOnComputed = Self(
    id: .injectOnComputed, message: "'@Inject' cannot be applied to a computed property")
  static func injectMissingType(_ name: String) -> Self {
    Self(
      id: .injectMissingType,
      message: "'@Inject' needs the type of '\(name)' to resolve it; add a type annotation")
  }
  static let injectInitialValue = Self(
    id: .injectInitialValue, message: "'@Inject' resolves the property; it cannot have an initial value")
  static let injectMultipleBindings = Self(
    id: .injectMultipleBindings, message: "'@Inject' applies to one property at a time")
  static let injectStatic = Self(
    id: .injectStatic, message: "'@Inject' applies to instance properties, not static ones")
  static let injectObservableNeedsIgnored = Self(
    id: .injectObservableNeedsIgnored,
    message: """
      '@Inject' inside an '@Observable' type needs '@ObservationIgnored' after it: \
      '@Observable' would otherwise add accessors of its own to the property
      """)
  static let injectAfterObservationIgnored = Self(
    id: .injectAfterObservationIgnored,
    message: """
      write '@Inject' before '@ObservationIgnored': Swift rejects the getter of an accessor \
      macro written after '@ObservationIgnored'
      """)
  static let injectExpressionArguments = Self(
    id: .injectExpressionArguments, message: "'#inject()' takes no arguments; the expected type selects the dependency")
}

/// What a fix-it does, in words.
struct ForgeInjectFixIt: FixItMessage {
  let message: String
  let id: String
  var fixItID: MessageID { MessageID(domain: "ForgeInjectMacros", id: id) }

  static func remove(_ attribute: String) -> Self {
    Self(message: "Remove '\(attribute)'", id: "remove-attribute")
  }
  static let replaceLetWithVar = Self(message: "Replace 'let' with 'var'", id: "let-to-var")
  static let addTypeAnnotation = Self(message: "Add a type annotation", id: "add-type-annotation")
  static let removeInitialValue = Self(message: "Remove the initial value", id: "remove-initial-value")
  static let removeArguments = Self(message: "Remove the arguments", id: "remove-arguments")
  static let addInitialValue = Self(message: "Add an initial value", id: "add-initial-value")
  static let addObservationIgnored = Self(
    message: "Add '@ObservationIgnored' after '@Inject'", id: "add-observation-ignored")
  static let moveInjectFirst = Self(
    message: "Write '@Inject' before '@ObservationIgnored'", id: "move-inject-first")
}

extension FixIt {
  /// Removes an attribute and the space after it, keeping the line's indentation.
  static func removing(_ attribute: AttributeSyntax, name: String) -> FixIt {
    FixIt(
      message: ForgeInjectFixIt.remove(name),
      changes: [
        .replace(
          oldNode: Syntax(attribute),
          newNode: Syntax(
            AttributeSyntax(attributeName: IdentifierTypeSyntax(name: .identifier("")))
              .with(\.atSign, .unknown(""))
              .with(\.leadingTrivia, attribute.leadingTrivia)
          )
        )
      ]
    )
  }

  /// Adds ` = <#value#>` after a binding's type.
  static func addingInitialValue(to binding: PatternBindingSyntax) -> FixIt {
    var valued = binding
    if var annotation = valued.typeAnnotation {
      annotation.type = annotation.type.trimmed
      valued.typeAnnotation = annotation
    }
    valued.initializer = InitializerClauseSyntax(
      equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
      value: ExprSyntax(stringLiteral: "<#value#>"),
      trailingTrivia: binding.typeAnnotation?.type.trailingTrivia ?? []
    )
    return FixIt(
      message: ForgeInjectFixIt.addInitialValue,
      changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(valued))]
    )
  }

  /// Adds `: <#Type#>` after a binding's name.
  static func addingTypeAnnotation(to binding: PatternBindingSyntax) -> FixIt {
    var annotated = binding
    annotated.pattern = annotated.pattern.trimmed
    annotated.typeAnnotation = TypeAnnotationSyntax(
      colon: .colonToken(trailingTrivia: .space),
      type: TypeSyntax(stringLiteral: "<#Type#>"),
      trailingTrivia: binding.pattern.trailingTrivia
    )
    return FixIt(
      message: ForgeInjectFixIt.addTypeAnnotation,
      changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))]
    )
  }
}
