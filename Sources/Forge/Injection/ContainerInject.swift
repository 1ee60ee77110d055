import ForgeCore

/// Injects a container's dependency, resolving it on first read and keeping
/// it in the wrapper afterwards.
///
/// Most code uses it through ``Inject``, or through a module's own alias:
///
/// ```swift
/// typealias Inject<T> = ContainerInject<AuthContainer, T>
///
/// final class LoginViewModel {
///   @Inject(\.authService) private var authService
///   @ContainerInject(TestContainer(), \.clock) private var clock
/// }
/// ```
///
/// The first read resolves the key path on the container, so the dependency
/// is built when it is first used, inside whatever `withOverrides` scope is
/// active then. Reading needs mutable access (a `mutating get`), which
/// classes always have.
@propertyWrapper
public struct ContainerInject<C: Container, Value> {
  private let container: C
  private let keyPath: KeyPath<C, Value>
  private var resolved: Value?

  /// Injects `keyPath` from an explicit `container`.
  public init(_ container: C, _ keyPath: KeyPath<C, Value>) {
    self.container = container
    self.keyPath = keyPath
  }

  /// Injects `keyPath` from the container type's shared instance.
  public init(_ keyPath: KeyPath<C, Value>) where C: SharedContainer {
    self.init(C.shared, keyPath)
  }

  /// Injects `keyPath` from ``Forge/defaultContainer``, read now; when it is
  /// nil, stops at `fileID` and `line`.
  public init(
    _ keyPath: KeyPath<Container, Value>,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) where C == Container {
    guard let container = Forge.defaultContainer else {
      let diagnostic = ForgeDiagnostic(
        .noContainer,
        """
        @ContainerInject<Container, \(TypeName.of(Value.self))> reads \
        Forge.defaultContainer, which is nil
        """,
        fix: """
          set Forge.defaultContainer before creating the object, or inject from a specific \
          container type (ContainerInject<MyContainer, T>) or instance.
          """
      )
      fatalError("Forge: \(diagnostic)", file: fileID, line: line)
    }
    self.init(container, keyPath)
  }

  /// The dependency, resolved on the first read.
  public var wrappedValue: Value {
    mutating get {
      if let resolved { return resolved }
      let value = container[keyPath: keyPath]
      resolved = value
      return value
    }
  }
}

/// Injects from ``AppContainer/shared``:
///
/// ```swift
/// @Inject(\.authService) private var authService
/// ```
///
/// A module with its own container shadows it with
/// `typealias Inject<T> = ContainerInject<MyContainer, T>`.
public typealias Inject<T> = ContainerInject<AppContainer, T>
