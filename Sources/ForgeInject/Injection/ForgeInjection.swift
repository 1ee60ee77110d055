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
      fatalError(
        """
        ForgeInject: \(site) needs \(String(reflecting: T.self)), but ForgeContainer.shared \
        is nil. To fix it, set ForgeContainer.shared at launch, before creating \(site), \
        or run the code inside ForgeContainer.withShared(container) { … }.
        """, file: fileID, line: line)
    }
    do {
      return try container.resolve()
    } catch {
      var message = """
        ForgeInject: \(site) needs \(String(reflecting: T.self)), but resolving it failed: \
        \(describe(error)).
        """
      if let registered = (container as? ForgeContainer)?.registeredTypeNames, !registered.isEmpty {
        message += " Registered types: \(registered.joined(separator: ", "))."
      }
      if let fix = fix(for: error, requested: T.self) { message += " " + fix }
      fatalError(message, file: fileID, line: line)
    }
  }

  /// "To fix it, …", naming the type that is missing or mismatched (which
  /// may be a dependency of the requested one); nil when the error's own
  /// description says it already.
  private static func fix<T>(for error: any Error, requested: T.Type) -> String? {
    let requestedName = String(reflecting: T.self)
    switch error {
    case let error as ForgeContainerError:
      let failed = error.failedType
      switch error {
      case .missingFactoryMethod:
        let passIt = failed == requestedName ? ", or pass the dependency to the initialiser" : ""
        return """
          To fix it, register \(failed) exactly as it is resolved \
          (container.register(with: .singleton) { _ in … as \(failed) })\(passIt).
          """
      case .typeMismatch:
        return """
          To fix it, register the instance as \(failed), the type it is resolved as \
          (container.register(with: .singleton) { _ in … as \(failed) }), or resolve it \
          as the type it is registered as.
          """
      }
    case is DependencyCycleError:
      return nil
    default:
      return "The error was thrown by a builder; to fix it, make that builder succeed."
    }
  }

  private static func describe(_ error: any Error) -> String {
    if let forgeError = error as? ForgeContainerError, let description = forgeError.errorDescription {
      return description
    }
    return String(describing: error)
  }
}
