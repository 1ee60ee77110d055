/// What the ForgeInject macros expand to. Call the macros, not this.
///
/// `@Injectable`'s initialiser defaults, `@Inject` and `#inject()` resolve
/// through ``resolve(_:fileID:line:)``, which stops with a message naming
/// the injection site and the missing type when resolution fails: an
/// injected dependency that cannot be resolved is a wiring bug to fix, not
/// an error to handle.
public enum ForgeInjection {
  /// Resolves `T` from ``ForgeContainer/shared`` for the injection `site`
  /// (`ViewModel.networkService`), or stops with a message saying why not.
  public static func resolve<T>(_ site: String, fileID: StaticString = #fileID, line: UInt = #line) -> T {
    resolve(site, in: ForgeContainer.shared, fileID: fileID, line: line)
  }

  /// Resolves `T` from `container` for the injection `site`, or stops with a
  /// message saying why not; a nil `container` is an unset shared one.
  static func resolve<T>(
    _ site: String,
    in container: ForgeContainerProtocol?,
    fileID: StaticString,
    line: UInt
  ) -> T {
    guard let container else {
      let diagnostic = ForgeDiagnostic(
        .noContainer,
        "\(site) needs \(TypeName.of(T.self)), but ForgeContainer.shared is nil",
        fix: """
          set ForgeContainer.shared at launch, before creating \(site), or run the code \
          inside ForgeContainer.withShared(container) { … }.
          """
      )
      fatalError("ForgeInject: \(diagnostic)", file: fileID, line: line)
    }
    do {
      return try container.resolve()
    } catch {
      let diagnostic = diagnostic(for: error, site: site, requested: T.self, in: container)
      fatalError("ForgeInject: \(diagnostic)", file: fileID, line: line)
    }
  }

  /// The failure of `site`'s resolution of `T`; the fix names the type that
  /// is missing or mismatched, which may be a dependency of `T`.
  private static func diagnostic<T>(
    for error: any Error,
    site: String,
    requested: T.Type,
    in container: ForgeContainerProtocol
  ) -> ForgeDiagnostic {
    let requestedName = TypeName.of(T.self)
    let needs = "\(site) needs \(requestedName)"
    let registeredNote = ForgeContainerError.registeredNote(in: container as? ForgeContainer)
    switch error {
    case let error as ForgeContainerError:
      switch error {
      case .missingFactoryMethod:
        let passIt = error.failedType == requestedName ? ", or pass the dependency to the initialiser" : ""
        return ForgeDiagnostic(
          .missing, "\(needs), but resolving it failed: \(describe(error))", reason: registeredNote,
          fix: "\(error.fix)\(passIt).")
      case .typeMismatch:
        return ForgeDiagnostic(
          .typeMismatch, "\(needs), but resolving it failed: \(describe(error))", reason: registeredNote,
          fix: "\(error.fix).")
      }
    case let cycle as DependencyCycleError:
      return ForgeDiagnostic(
        .cycle,
        "\(needs), but resolving it closes a dependency cycle: \(cycle.renderedPath)",
        reason: cycle.diagnostic.reason,
        fix: cycle.diagnostic.fix
      )
    default:
      return ForgeDiagnostic(
        .builderFailed,
        "\(needs), but a builder threw \(TypeName.reflecting(error))",
        fix: "make that builder succeed, or resolve with try container.resolve() where the error can be handled."
      )
    }
  }

  private static func describe(_ error: any Error) -> String {
    if let forgeError = error as? ForgeContainerError, let description = forgeError.errorDescription {
      return description
    }
    return String(describing: error)
  }
}
