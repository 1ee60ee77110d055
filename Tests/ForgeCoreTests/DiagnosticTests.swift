import ForgeCore
import Foundation
import Testing

@Suite("Diagnostics: one voice")
struct DiagnosticTests {
  @Test("every identifier in the code has a section in the Diagnostics article")
  func everyIdentifierIsDocumented() throws {
    let article = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Sources/ForgeCore/ForgeCore.docc/Diagnostics.md")
    let text = try String(contentsOf: article, encoding: .utf8)
    for id in ForgeDiagnostic.ID.allCases {
      #expect(text.contains("### \(id.rawValue)\n"), "\(id.rawValue) is not documented in Diagnostics.md")
    }
    // And nothing documented that the code no longer has.
    let documented = text.split(separator: "\n").filter { $0.hasPrefix("### Forge.") }.map { String($0.dropFirst(4)) }
    #expect(Set(documented) == Set(ForgeDiagnostic.ID.allCases.map(\.rawValue)))
  }

  @Test("the template: identifier, what failed, the chain, why, and the fix")
  func template() {
    let diagnostic = ForgeDiagnostic(
      .missing, "Screen.a needs A", chain: ["A", "B", "C"], reason: "C is not registered.", fix: "register C.")
    #expect(
      diagnostic.description
        == "[Forge.missing] Screen.a needs A. Chain: A → B → C. C is not registered. To fix it, register C.")
    #expect(ForgeDiagnostic(.cycle, "x", fix: "y.").description == "[Forge.cycle] x. To fix it, y.")
    // A chain the summary already ends with is not said twice; a longer one is.
    let cycle = DependencyCycleError(path: ["A", "B", "A"]).diagnostic
    let reachedFromItself = ForgeDiagnostic(
      .cycle, cycle.summary, chain: ["A", "B", "A"], reason: cycle.reason, fix: cycle.fix)
    #expect(reachedFromItself.description.hasPrefix("[Forge.cycle] Dependency cycle: A → B → A. Building A needs"))
    let reachedFromRoot = ForgeDiagnostic(
      .cycle, cycle.summary, chain: ["Root", "A", "B", "A"], reason: cycle.reason, fix: cycle.fix)
    #expect(
      reachedFromRoot.description.hasPrefix(
        "[Forge.cycle] Dependency cycle: A → B → A. Chain: Root → A → B → A. Building A needs"))
  }

  @Test("the engine's errors render through it")
  func engineErrors() {
    #expect(
      DependencyCycleError(path: ["a", "b", "a"]).description.hasPrefix("[Forge.cycle] Dependency cycle: a → b → a."))
    let mismatch = DependencyTypeMismatchError(dependency: "C.x", expected: "Int", actual: "String", chain: ["C.y"])
    #expect(mismatch.description.hasPrefix("[Forge.typeMismatch] Type mismatch resolving C.x"))
    #expect(mismatch.description.contains("Chain: C.y → C.x."))
  }
}
