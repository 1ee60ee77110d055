import ForgeCore

/// A container of dependencies, each declared as a computed property that
/// calls ``provide(_:key:fileID:line:_:preview:)-(_,_,_,_,()->Any,_)``.
///
/// Subclass it, one container per module, or extend ``AppContainer``:
///
/// ```swift
/// final class AuthContainer: Container, SharedContainer {
///   static let shared = AuthContainer()
///
///   var networkClient: any NetworkClientProtocol {
///     provide(.singleton) { URLSessionNetworkClient() }
///   }
///
///   var authService: any AuthServiceProtocol {
///     provide(.singleton) { AuthService(network: self.networkClient) }
///   }
/// }
/// ```
///
/// In Swift 6 language mode the compiler asks each subclass to restate the
/// conformance: write `final class AuthContainer: Container, SharedContainer,
/// @unchecked Sendable`. It is safe because a container keeps no state of its
/// own outside the engine store, which guards everything with its lock.
///
/// A container is safe to use from any thread: a `.singleton` or `.cached`
/// dependency is built exactly once however many threads ask at the same
/// time, factories may resolve other dependencies, and a dependency cycle
/// stops with a message that names every property on the path.
open class Container: @unchecked Sendable {
  // @unchecked: a container's only state is its engine store, which guards
  // everything it holds with its own lock. Subclasses add computed
  // properties, not stored state.

  /// The engine's store: slots by `provide` key, and container-wide overrides.
  @usableFromInline let store = SlotStore<DeclarationKey>()
  /// The store's fast table cell, kept here so that a hit finds the table
  /// with one load fewer.
  @usableFromInline let fastTable: FastTableCell

  /// Creates an empty container.
  public init() {
    fastTable = store.fastTable
  }

  /// Resolves the dependency the calling property declares.
  ///
  /// Call it from a computed property; the property's name becomes the key
  /// (through `#function`), and the property's type is the dependency's type.
  ///
  /// ```swift
  /// var authService: any AuthServiceProtocol {
  ///   provide(.singleton) {
  ///     AuthService(network: self.networkClient)
  ///   } preview: {
  ///     MockAuthService()
  ///   }
  /// }
  /// ```
  ///
  /// Resolution order: an override from `withOverrides`, then one from
  /// `override(_:with:)`, then the preview factory when running in Xcode
  /// Previews (or inside `Forge/withPreviewMode(_:operation:)`),
  /// then `factory`. Only `factory`'s instances are kept according to `scope`.
  ///
  /// Inside a function with parameters, a kept dependency needs a key per
  /// argument, or every call would get the first call's instance; Forge stops
  /// with a message when the key is the function's own name:
  ///
  /// ```swift
  /// func viewModel(id: Int) -> ItemViewModel {
  ///   provide(.cached, key: "viewModel-\(id)") { ItemViewModel(id: id) }
  /// }
  /// ```
  ///
  /// A `provide` call that has made two different keys makes them per
  /// argument: a transient's key made this way is forgotten once nothing
  /// uses it, and each of its reads takes the container's lock. A kept
  /// one reads without the lock and keeps its place (under 1 KB) while it
  /// keeps an instance: `resetCached()` (or `resetAll()`, for a
  /// singleton) forgets it, unless another dependency's build read it.
  ///
  /// - Parameters:
  ///   - scope: how long the instance built by `factory` is kept.
  ///   - key: identifies the dependency in this container, together with
  ///     the file it is declared in; defaults to the calling property's name.
  ///   - fileID: the declaring file; leave the default. Two modules that
  ///     both declare `var logger` on one container get two dependencies.
  ///   - line: the declaring line; leave the default. A failure while
  ///     resolving this dependency stops the program at this `fileID` and
  ///     line, so the crash points at the declaration, not into Forge.
  ///   - factory: builds the instance; may read other properties.
  ///   - preview: builds the instance in Xcode Previews; never kept.
  ///
  /// When the closures return their instances' own types, as above, Swift
  /// picks the overloads that keep those types
  /// (``provide(_:key:fileID:line:_:)->T`` without a preview, and one with
  /// a preview): the same declaration, with no `Any` in between.
  @inlinable @_disfavoredOverload
  public func provide<T>(
    _ scope: Scope = .transient,
    key: String = #function,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ factory: () -> Any,
    preview: (() -> Any)? = nil
  ) -> T {
    provideMade(scope, key: key, fileID: fileID, line: line, factory, preview: preview)
  }

  /// ``provide(_:key:fileID:line:_:preview:)-(_,_,_,_,()->Any,_)`` without a preview, for
  /// a factory whose instance keeps its own type, `Made`, until the
  /// dependency's type `T` is known: Swift picks this overload for such
  /// calls, and the instance reaches the property with no `Any` box to
  /// open and, when `Made` is `T`, no cast. The compiler makes a
  /// conversion to a protocol that is not class-bound where the call is
  /// specialised; one to a class-bound protocol (`AnyObject`) still asks
  /// the runtime for the conformance, on every build.
  ///
  /// ```swift
  /// var logger: any Logger { provide(.singleton) { ConsoleLogger() } }
  /// ```
  ///
  /// A `Made` that is not a `T` stops with a type mismatch when the
  /// dependency is built, as the seed's `provide` does. Marked as
  /// disfavoured, like that one, so that the `async` and main-actor
  /// `provide`s win for the properties they fit.
  @inlinable @_disfavoredOverload
  public func provide<T, Made>(
    _ scope: Scope = .transient,
    key: String = #function,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ factory: () -> Made
  ) -> T {
    provideMade(scope, key: key, fileID: fileID, line: line, factory, preview: nil as (() -> Made)?)
  }

  /// ``provide(_:key:fileID:line:_:)->T`` with a preview: the factory and
  /// the preview each keep their own type (`Made`, `Preview`) until the
  /// dependency's type `T` is known, so the instance reaches the property
  /// with no `Any` box to open. Swift picks this overload for a call with
  /// a preview whose closures return their instances' own types; the
  /// seed's `provide`, whose closures return `Any`, stays for the rest.
  ///
  /// ```swift
  /// var authService: any AuthServiceProtocol {
  ///   provide(.singleton) { AuthService() } preview: { MockAuthService() }
  /// }
  /// ```
  ///
  /// A factory or preview whose instance is not a `T` stops with a type
  /// mismatch when it runs, as the seed's `provide` does.
  @inlinable @_disfavoredOverload
  public func provide<T, Made, Preview>(
    _ scope: Scope = .transient,
    key: String = #function,
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ factory: () -> Made,
    preview: @escaping () -> Preview
  ) -> T {
    provideMade(scope, key: key, fileID: fileID, line: line, factory, preview: preview)
  }

  /// What the synchronous `provide`s do, for factories that make `Made`
  /// and previews that make `Preview` (`Any` for the seed's).
  @inlinable @inline(__always)
  final func provideMade<T, Made, Preview>(
    _ scope: Scope,
    key: String,
    fileID: StaticString,
    line: UInt,
    _ factory: () -> Made,
    preview: (() -> Preview)?
  ) -> T {
    let key = DeclarationKey(key, file: fileID, line: line)
    // Inlinable: the caller's call specialises the engine's common cases
    // for its `T`.
    // A transient has nothing to read: straight to its build, with the key
    // as one value (`scope` is the caller's literal, so only one branch is
    // compiled into the caller).
    guard scope != .transient else { return provideTransient(key: key, factory, preview: preview) }
    var known: SlotTableEntry?  // not passed on: the general path finds the slot itself
    // The thread's question first: the store is loaded past it, so that
    // nothing is kept across the call a raised gate makes.
    if preview == nil || !PreviewMode.mightBeActive, let reader = ResolutionContext.clearFastReader,
      let value = store.publishedValue(
        bits: key.identityBits, as: T.self, known: &known, fastTable: fastTable, reader: reader)
    {
      return value
    }
    if preview == nil, let site = PackedSite(file: fileID, line: line, scope: scope) {
      return provideMissedAtSite(key: key.name, site: site, factory)
    }
    return provideMissed(scope, key: key.name, fileID: fileID, line: line, factory, preview: preview)
  }

  /// ``provideMissed(_:key:fileID:line:_:preview:)`` for a `provide`
  /// without a preview, its site packed (see ``PackedSite``): every
  /// argument in a register. An overridden read, or one in or beside an
  /// override scope, is served here, with only the file's address taken
  /// from the site; the rest is unpacked out of line, in
  /// ``provideBuildingAtSite(key:site:_:)``, so that these reads keep
  /// their registers (a container-wide override read 320 → 303
  /// instructions, a read beside a scope 441 → 398).
  @inlinable @inline(never)
  final func provideMissedAtSite<T, Made>(key name: String, site: PackedSite, _ factory: () -> Made) -> T {
    do {
      if let value = try store.servedPastOverrides(
        bits: DeclarationKey(name, file: site.fileID).identityBits, as: T.self, servesPublished: true)
      {
        return value
      }
    } catch {
      stop(error, file: site.fileID, line: site.line)
    }
    return provideBuildingAtSite(key: name, site: site, factory)
  }

  /// ``provideMissedAtSite(key:site:_:)`` past the reads it serves: the
  /// engine's general path, with the site unpacked.
  @inlinable @inline(never)
  final func provideBuildingAtSite<T, Made>(key name: String, site: PackedSite, _ factory: () -> Made) -> T {
    provideBuilding(
      site.scope, key: DeclarationKey(name, file: site.fileID, line: site.line), factory,
      preview: nil as (() -> Made)?)
  }

  /// A synchronous `provide` past the published read, out of line, for a
  /// site ``PackedSite`` cannot hold or a `provide` with a preview. The
  /// key comes in its parts, each passed in registers: the key as one value
  /// would be passed by address, which costs the hit a stack frame and a
  /// stack-protector check.
  ///
  /// With overrides installed on the container, or a scope live, the
  /// common reads (the override, which beats the preview and the factory,
  /// or a kept instance of a dependency not overridden) are served before
  /// the general path's closures are set up; the instance not when a
  /// preview would serve the read.
  @inlinable @inline(never)
  final func provideMissed<T, Made, Preview>(
    _ scope: Scope,
    key name: String,
    fileID: StaticString,
    line: UInt,
    _ factory: () -> Made,
    preview: (() -> Preview)?
  ) -> T {
    let key = DeclarationKey(name, file: fileID, line: line)
    let servesPublished = preview == nil || !PreviewMode.mightBeActive
    do {
      if let value = try store.servedPastOverrides(
        bits: key.identityBits, as: T.self, servesPublished: servesPublished)
      {
        return value
      }
    } catch {
      stop(error, file: fileID, line: line)
    }
    return provideBuilding(scope, key: key, factory, preview: preview)
  }

  /// A synchronous `provide` for a transient, out of line: a known
  /// transient is built here, with none of the general path's closures;
  /// the rest goes on to ``provideResolving(_:key:_:preview:)``. Out of
  /// line so that a kept dependency's `provide`, whose scope rules this
  /// out, stays small enough to be inlined where it is read.
  @inlinable @inline(never)
  final func provideTransient<T, Made, Preview>(
    key: DeclarationKey,
    _ factory: () -> Made,
    preview: (() -> Preview)?
  ) -> T {
    guard preview == nil || !PreviewMode.mightBeActive else {
      return provideResolving(.transient, key: key, factory, preview: preview)
    }
    // A factory whose `Made` is `T` cannot throw: this `do` costs such a
    // build nothing. The general path stops on its own failures.
    do {
      return try store.builtTransient(
        bits: key.identityBits, as: T.self, factory: { try typed(factory(), key: key, factoryName: "factory") },
        otherwise: { provideResolving(.transient, key: key, factory, preview: preview) })
    } catch {
      stop(error, file: key.file, line: key.line)
    }
  }

  /// A synchronous `provide` for a transient (nothing to read), and the
  /// async `provide` past its published read.
  @inlinable @inline(never)
  final func provideResolving<T, Made, Preview>(
    _ scope: Scope,
    key: DeclarationKey,
    _ factory: () -> Made,
    preview: (() -> Preview)?
  ) -> T {
    provideBuilding(scope, key: key, factory, preview: preview)
  }

  /// What ``provideMissed(_:key:fileID:line:_:preview:)``,
  /// ``provideBuildingAtSite(key:site:_:)`` and
  /// ``provideResolving(_:key:_:preview:)`` share: the preview, else the
  /// engine's general path.
  @inlinable @inline(__always)
  final func provideBuilding<T, Made, Preview>(
    _ scope: Scope,
    key: DeclarationKey,
    _ factory: () -> Made,
    preview: (() -> Preview)?
  ) -> T {
    do {
      if let preview, PreviewMode.mightBeActive, PreviewMode.isActive {
        return try store.resolvePreview(key, name: slotName(key)) {
          try typed(preview(), key: key, factoryName: "preview factory")
        }
      }
      // The slot's name is made once, when the slot is: the key is checked
      // there rather than on every resolution, since that reads its text.
      return try store.resolve(key, lifetime: scope.lifetime, name: checkedDependencyName(key, scope: scope)) {
        try typed(factory(), key: key, factoryName: "factory")
      }
    } catch {
      stop(error, file: key.file, line: key.line)
    }
  }

  /// ``slotName(_:)`` for a new slot, after stopping a kept `provide`
  /// whose key is the name of a function with parameters: every argument
  /// would get the instance built for the first.
  @usableFromInline @inline(never)
  final func checkedDependencyName(_ key: DeclarationKey, scope: Scope) -> SlotName {
    guard scope != .transient, key.name.utf8.last == UInt8(ascii: ")"), !key.name.hasSuffix("()") else {
      return slotName(key)
    }
    let name = key.name.prefix { $0 != "(" }
    let diagnostic = ForgeDiagnostic(
      .keyPerArgument,
      "\(dependencyName(key)) is a .\(scope) dependency declared in a function with parameters",
      reason: """
        Its key (\(key.name), the function's name) is the same for every argument, so every \
        call would get the instance built for the first one.
        """,
      fix: """
        key it by its arguments, provide(.\(scope), key: "\(name)-\\(id)") { … }, or make \
        it .transient.
        """
    )
    ValidationSession.failIfValidating(DiagnosedFailure(diagnostic))
    fatalError("Forge: \(diagnostic)", file: key.file, line: key.line)
  }

  /// Stops the program with the message for a failed resolution, at the
  /// declaration of the dependency that failed (`file`, `line`), or at the
  /// override that was misdirected.
  @usableFromInline
  final func stop(_ error: any Error, file: StaticString, line: UInt) -> Never {
    // Validating: the run ends here and reports the error instead.
    ValidationSession.failIfValidating(error)
    // Forge's factories cannot throw: only the engine's errors reach here.
    let location = (error as? MisdirectedOverride)?.location ?? CodeLocation(fileID: file, line: line)
    StopSite(dialect: "Forge", location: location).stop(error)
  }

  /// Removes every override and every kept instance, singletons included.
  ///
  /// ```swift
  /// AppContainer.shared.resetAll()
  /// ```
  ///
  /// Inside a test that isolates the container (ForgeTesting), it removes
  /// the overrides the test installed and clears the instances it built,
  /// and nothing else: the container's overrides (a composition root's
  /// wiring, say) serve every test.
  public func resetAll() {
    store.removeAllOverrides()
    store.clearStored { _ in true }
  }

  /// Removes the instances of `.cached` dependencies; singletons and
  /// overrides stay.
  ///
  /// ```swift
  /// AppContainer.shared.resetCached()  // the next read builds a fresh view model
  /// ```
  public func resetCached() {
    store.clearStored { $0 == .cached }
  }

  /// How messages name the dependency behind `key`: `AuthContainer.authService`.
  @usableFromInline
  final func dependencyName(_ key: DeclarationKey) -> String {
    slotName(key).rendered
  }

  /// ``dependencyName(_:)`` as a slot keeps it, rendered only when a
  /// message or a graph asks for it.
  @usableFromInline
  final func slotName(_ key: DeclarationKey) -> SlotName {
    .member(of: type(of: self), key.name)
  }

  /// What a factory made, as `T`. The checks on `Made` and `T` are decided
  /// when the caller's call is specialised: a `Made` that is `T` is
  /// returned as it is, an `Any` goes to ``cast(_:key:factoryName:)``, and
  /// any other `Made` is converted with `as?`, which the compiler resolves
  /// statically when it can see the conformance (not yet for class-bound
  /// protocols in Swift 6.3).
  @inlinable @inline(__always)
  final func typed<T, Made>(_ made: Made, key: DeclarationKey, factoryName: String) throws -> T {
    if Made.self == T.self { return unsafeBitCast(made, to: T.self) }
    // An `Any` passed on as `Any` would be wrapped once more, and the
    // cast's direct check would see the wrapper.
    if Made.self == Any.self { return try cast(unsafeBitCast(made, to: Any.self), key: key, factoryName: factoryName) }
    if let converted = made as? T { return converted }
    throw typeMismatch(made, as: T.self, key: key, factoryName: factoryName)
  }

  /// The factory's value as `T`. When the `Any` holds a `T` as such (the
  /// factory's expression had type `T`), it is taken out directly: the
  /// type the `Any` records is compared, with no dynamic type lookup, and
  /// the runtime's general cast (needed for protocol types, subclasses, …),
  /// which costs more than a whole cached resolution, is skipped.
  @inlinable
  final func cast<T>(_ value: Any, key: DeclarationKey, factoryName: String) throws -> T {
    func holdsT<Contained>(_ contained: Contained) -> Bool { Contained.self == T.self }
    if _openExistential(value, do: holdsT) {
      func project<Contained>(_ contained: Contained) -> T { unsafeBitCast(contained, to: T.self) }
      return _openExistential(value, do: project)
    }
    return try castConverting(value, key: key, factoryName: factoryName)
  }

  /// The general cast, kept out of line: its `Optional<T>` would otherwise
  /// cost a metadata lookup on every build, cast taken or not.
  @usableFromInline @inline(never)
  final func castConverting<T>(_ value: Any, key: DeclarationKey, factoryName: String) throws -> T {
    if let typed = value as? T { return typed }
    throw typeMismatch(value, as: T.self, key: key, factoryName: factoryName)
  }

  /// The error for a factory's `value` that is not a `T`.
  @usableFromInline @inline(never)
  final func typeMismatch<T>(_ value: Any, as type: T.Type, key: DeclarationKey, factoryName: String) -> any Error {
    DependencyTypeMismatchError(
      dependency: dependencyName(key),
      expected: TypeName.of(T.self),
      actual: "\(TypeName.of(Swift.type(of: value))) from its \(factoryName)",
      chain: ResolutionContext.current.chain
    )
  }
}
