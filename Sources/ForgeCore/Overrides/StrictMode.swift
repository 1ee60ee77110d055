/// Which real factories a test forbids: a resolution that would run one
/// fails, with its chain, instead of touching the network or the disk.
///
/// ```swift
/// @Test(.isolated(AppContainer.shared, strict: .dependencies(["AppContainer.network"])) {
///   $0.override(\.clock) { FixedClock() }
/// })
/// func checkout() { … }   // resolving AppContainer.network unoverridden fails
/// ```
///
/// In ForgeInject the resolution throws the violation, which fails the test
/// that called `try`; in the dialects whose resolutions cannot throw (Forge,
/// SwiftPod, DependencyFetcher) it stops the test process with the same
/// message, since Swift gives a call that cannot throw no other way out
/// that leaves the factory unrun. Under Swift Testing the message names the
/// test and where it is declared: with tests running in parallel, that is
/// how a stopped process says which one broke the rule.
public enum StrictMode: Sendable, Hashable {
  /// Nothing is forbidden.
  case off
  /// These dependencies, named as messages name them
  /// (`AppContainer.network`, `Provider<MyApp.API>`, `MyApp.Database`),
  /// must be overridden.
  ///
  /// A provider or service declared without a name is named by its type
  /// and where it is declared, `Provider<MyApp.API> (APIProviders.swift:12)`:
  /// that name forbids that one, and `Provider<MyApp.API>` every unnamed
  /// provider of `MyApp.API`. A `private` type is named without its
  /// private context (`MyAppTests.MockClock`).
  case dependencies(Set<String>)
  /// Every dependency of the isolated containers must be overridden: a test
  /// that runs no real factory at all.
  case allUnoverridden
}

extension StrictMode {
  /// Whether `names` name the dependency called `name`: as it is, or
  /// without the declaration site that an unnamed provider's or service's
  /// name ends with (`Provider<MyApp.API> (APIProviders.swift:12)`).
  static func names(_ names: Set<String>, include name: String) -> Bool {
    if names.contains(name) { return true }
    guard name.hasSuffix(")"),
      let open = name.lastIndex(of: "("), open > name.startIndex,
      name[name.index(before: open)] == " ", name[open...].contains(".swift:")
    else { return false }
    return names.contains(String(name[..<name.index(before: open)]))
  }
}

/// A real factory that the test's ``StrictMode`` forbids was about to run.
package struct StrictModeViolation: Error, CustomStringConvertible {
  package let dependency: String
  package let chain: [String]
  /// The test whose strict mode forbids it, when known: in the dialects
  /// that stop the test process, the message is all that says which test.
  package var test: String? = nil

  package var diagnostic: ForgeDiagnostic {
    let who = test.map { "The test \($0)" } ?? "The test"
    return ForgeDiagnostic(
      .strictMode,
      "\(dependency) was resolved with its real factory, which this test forbids",
      chain: chain + [dependency],
      reason: "\(who) runs in strict mode: a dependency it does not override must not be built for real.",
      fix: "override \(dependency) in the test, or leave it out of the test's strict mode."
    )
  }

  package var description: String { diagnostic.description }
}

extension OverrideScope {
  /// Throws when a strict mode of this scope or one around it forbids
  /// `slot`'s own factory.
  package func checkStrict(_ slot: AnySlot, chain: @autoclosure () -> [String]) throws {
    var scope: OverrideScope? = self
    while let current = scope {
      if current.forbids(slot) {
        throw StrictModeViolation(dependency: slot.name, chain: chain(), test: current.strictOwner)
      }
      scope = current.parentScope
    }
  }
}
