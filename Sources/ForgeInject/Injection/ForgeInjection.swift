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
    guard let container = ForgeContainer.shared else {
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
      message += """
         To fix it, register \(String(describing: T.self)) exactly as the property declares it \
        (container.register(with: .singleton) { _ in … as \(String(describing: T.self)) }), \
        or pass the dependency to the initialiser.
        """
      fatalError(message, file: fileID, line: line)
    }
  }

  private static func describe(_ error: any Error) -> String {
    if let forgeError = error as? ForgeContainerError, let description = forgeError.errorDescription {
      return description
    }
    return String(describing: error)
  }
}
