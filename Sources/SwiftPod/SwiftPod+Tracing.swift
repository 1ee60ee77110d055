extension SwiftPod {
  /// Tells `observer` about every resolution of this pod from now on,
  /// until ``removeObserver(_:)``; safe from any thread.
  ///
  /// ```swift
  /// let token = pod.addObserver(ResolutionTreePrinter())
  /// _ = pod.resolve(dataServiceProvider)
  /// pod.removeObserver(token)
  /// ```
  ///
  /// While an observer is added, this pod's resolutions take the locked
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

extension SwiftPod: IsolatableContainer {
  public var isolationKey: IsolationKey { IsolationKey(store) }
}
