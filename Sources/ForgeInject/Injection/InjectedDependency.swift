import ForgeCore

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// The storage `@Inject` adds next to the property it expands: resolves once,
/// on first access (or at once, with `lazy: false`), and keeps the instance
/// for the owning object, even for a transient registration.
///
/// ```swift
/// @Inject var analytics: AnalyticsServiceProtocol
/// // expands to a getter reading `_analytics.value`, where
/// // `_analytics = InjectedDependency<AnalyticsServiceProtocol>("Owner.analytics", lazy: true)`
/// ```
public final class InjectedDependency<Value>: @unchecked Sendable {
  // @unchecked: `resolved` and `resolvingThread` are only touched with
  // `lock` held.
  private let lock = ConditionLock()
  private var resolved: Value?
  private var resolvingThread: pthread_t?
  private let site: String
  private let fileID: StaticString
  private let line: UInt

  /// Storage for the injection `site`; resolves now unless `lazy`.
  public init(_ site: String, lazy: Bool = true, fileID: StaticString = #fileID, line: UInt = #line) {
    self.site = site
    self.fileID = fileID
    self.line = line
    if !lazy {
      let value: Value = ForgeInjection.resolve(site, fileID: fileID, line: line)
      resolved = value
    }
  }

  /// The dependency, resolved on first access. Concurrent first reads
  /// resolve once: the first thread resolves (without holding the lock), the
  /// others wait for its result.
  public var value: Value {
    lock.lock()
    while resolved == nil, let owner = resolvingThread {
      if pthread_equal(owner, pthread_self()) != 0 {
        lock.unlock()
        fatalError(
          "ForgeInject: \(site) was read again while it was being resolved: its dependency needs the object that injects it.",
          file: fileID, line: line)
      }
      lock.wait()
    }
    if let resolved {
      lock.unlock()
      return resolved
    }
    resolvingThread = pthread_self()
    lock.unlock()
    // Resolution either succeeds or stops the program, so there is no
    // failure state to undo.
    let value: Value = ForgeInjection.resolve(site, fileID: fileID, line: line)
    lock.withLock {
      resolved = value
      resolvingThread = nil
      lock.broadcast()
    }
    return value
  }
}
