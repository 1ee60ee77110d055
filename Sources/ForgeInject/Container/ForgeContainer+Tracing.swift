import ForgeCore

extension ForgeContainer {
  /// Tells `observer` about every resolution of this container from now
  /// on, until ``removeObserver(_:)``; safe from any thread.
  ///
  /// ```swift
  /// let token = container.addObserver(SlowBuildReporter(threshold: .milliseconds(5)))
  /// _ = try container.resolve() as UserService
  /// container.removeObserver(token)
  /// ```
  ///
  /// While an observer is added, this container's resolutions take the
  /// locked path; with none, they cost what they cost before.
  @discardableResult
  public func addObserver(_ observer: some ResolutionObserver) -> ObserverToken {
    store.addObserver(observer)
  }

  /// Stops the observer `token` names.
  public func removeObserver(_ token: ObserverToken) {
    store.removeObserver(token)
  }
}

extension ForgeContainer: IsolatableContainer {
  public var isolationKey: IsolationKey { IsolationKey(store) }
}
