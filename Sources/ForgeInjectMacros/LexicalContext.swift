import SwiftSyntax
import SwiftSyntaxMacros

extension MacroExpansionContext {
  /// The innermost type (or extended type) around the expansion, as written.
  var enclosingTypeName: String? {
    for syntax in lexicalContext {
      if let decl = syntax.as(ClassDeclSyntax.self) { return decl.name.text }
      if let decl = syntax.as(StructDeclSyntax.self) { return decl.name.text }
      if let decl = syntax.as(ActorDeclSyntax.self) { return decl.name.text }
      if let decl = syntax.as(EnumDeclSyntax.self) { return decl.name.text }
      if let decl = syntax.as(ExtensionDeclSyntax.self) { return decl.extendedType.trimmedDescription }
    }
    return nil
  }

  /// Whether the innermost type around the expansion is `@Observable`.
  var enclosingTypeIsObservable: Bool {
    for syntax in lexicalContext {
      guard let group = syntax.asProtocol(DeclGroupSyntax.self) else { continue }
      return group.attributes.contains {
        $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription.hasSuffix("Observable") == true
      }
    }
    return false
  }

  /// `fileID: "Module/File.swift", line: 12` for `node`, to report failures
  /// where the user wrote the injection.
  func locationArguments(of node: some SyntaxProtocol) -> String {
    guard let location = location(of: node, at: .afterLeadingTrivia, filePathMode: .fileID) else {
      return "fileID: #fileID, line: #line"
    }
    return "fileID: \(location.file), line: \(location.line)"
  }
}

extension DeclModifierListSyntax {
  var isStatic: Bool {
    contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
  }
}
