extension Fetcher {
  /// Tells `observer` about every fetch of this fetcher from now on, until
  /// ``removeObserver(_:)``; safe from any thread.
  ///
  /// ```swift
  /// let token = fetcher.addObserver(ResolutionTreePrinter())
  /// _ = fetcher.fetch(.userRepository)
  /// fetcher.removeObserver(token)
  /// ```
  ///
  /// While an observer is added, this fetcher's fetches take the locked
  /// path; with none, they cost what they cost before.
  @discardableResult
  public func addObserver(_ observer: some ResolutionObserver) -> ObserverToken {
    store.addObserver(observer)
  }

  /// Stops the observer `token` names.
  public func removeObserver(_ token: ObserverToken) {
    store.removeObserver(token)
  }
}

extension Fetcher: IsolatableContainer {
  public var isolationKey: IsolationKey { IsolationKey(store) }
}
