#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A detached POSIX thread running one closure: a validation root's
/// resolution, or a key-path read that parks (see ``ParkedKeyRead``). Both
/// may park the thread for good, which no pool thread may do.
enum DetachedThread {
  /// What the thread runs.
  private final class Body {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
  }

  /// Starts a thread running `run`; `purpose` names it in the message that
  /// stops the process when no thread can start.
  static func start(purpose: String, _ run: @escaping () -> Void) {
    let body = Unmanaged.passRetained(Body(run)).toOpaque()
    #if canImport(Darwin)
      var thread: pthread_t?
    #else
      var thread = pthread_t()
    #endif
    let status = pthread_create(
      &thread, nil,
      { raw in
        #if canImport(Darwin)
          let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
        #else
          let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
        #endif
        body.run()
        return nil
      }, body)
    guard status == 0 else {
      fatalError("ForgeCore: \(ForgeDiagnostic.internalError("a \(purpose) thread could not start (\(status))"))")
    }
    #if canImport(Darwin)
      pthread_detach(thread!)
    #else
      pthread_detach(thread)
    #endif
  }
}
