import Forge

// The app target: the only place that knows every module, and wires the
// feature modules' proxies to the real implementations.

extension AppContainer {
  var logger: any Logger { LoggingContainer.shared.logger }
  var analytics: any Analytics { AnalyticsContainer.shared.analytics }
}

enum CompositionRoot {
  static func wire() {
    let logging = LoggingContainer.shared
    let analytics = AnalyticsContainer.shared
    let auth = AuthContainer.shared
    AuthContainer.shared.override(\.logger) { logging.logger }
    TasksContainer.shared.override(\.logger) { logging.logger }
    TasksContainer.shared.override(\.analytics) { analytics.analytics }
    TasksContainer.shared.override(\.authService) { auth.authService }
  }
}
