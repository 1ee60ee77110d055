import ForgeCore

/// A service made on the main actor (a view model, a UI service), once per
/// fetcher: fetch it on the main actor synchronously, and with `await`
/// anywhere else.
///
/// ```swift
/// extension MainActorService where T == SettingsViewModel {
///   static let settings = MainActorService { fetcher in SettingsViewModel(store: fetcher.fetch(.store)) }
/// }
///
/// @MainActor func show(fetcher: Fetcher) { _ = fetcher.fetch(.settings) }
/// ```
public final class MainActorService<T>: Sendable, KeyObject {
  /// What a container keys this dependency by: never reused, so a
  /// container need not keep the object alive to tell it from one made
  /// later at the same address (a container forgets a dependency whose
  /// key object is gone).
  @usableFromInline package let keySerial = KeySerial.next()
  /// Tells the containers that key by it when it is gone.
  @usableFromInline package let keyLife = KeyLife.make()

  deinit { keyLife.end() }
  let make: @MainActor @Sendable (Fetcher) -> T
  /// Names the service in messages, such as a cycle's path, and graphs;
  /// defaults to its type and where it is declared.
  public let name: String
  /// Where the service is declared: a failed fetch stops there.
  let location: CodeLocation

  /// A service that `make` makes on the main actor from other services of
  /// the same fetcher.
  ///
  /// `fileID` and `line` say where it is declared; leave the defaults. A
  /// fetch of this service that fails stops the program there.
  public init(
    _ name: String? = nil,
    _ make: @escaping @MainActor @Sendable (Fetcher) -> T,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.make = make
    self.location = CodeLocation(fileID: fileID, line: line)
    self.name = name ?? location.defaultName("MainActorService", of: T.self)
  }
}

extension Fetcher {
  /// The service's instance, made on the main actor on the first fetch.
  ///
  /// ```swift
  /// let settings = fetcher.fetch(.settings)   // on the main actor
  /// ```
  @inlinable @MainActor
  public func fetch<T>(_ service: MainActorService<T>) -> T {
    // Inlinable: a hit is the published read of the handle, then one load,
    // with the handle read in place (not copied out, retained and released).
    // The service outlives the resolution: once it is gone, the container
    // may drop its slot, which the read uses unretained.
    if let value = store.publishedMainActorObjectValueOnMainActor(
      serial: service.keySerial, life: service.keyLife, as: T.self)
    {
      extendLifetime(service)
      return value
    }
    return mainActorHandle(service).value
  }

  /// The handle of `service`, past the published read.
  @usableFromInline
  func mainActorHandle<T>(_ service: MainActorService<T>) -> MainActorDependency<T> {
    do {
      return try store.mainActorHandle(
        for: service, name: service.name, lifetime: .singleton,
        stopSite: StopSite(dialect: "DependencyFetcher", location: service.location)
      ) { [unowned self] in service.make(self) }
    } catch {
      stop(error, at: service.location)
    }
  }
}
