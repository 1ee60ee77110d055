import Forge
import Testing

/// Properties no other test overrides: each test here is the first in the
/// process to override its key paths, so their reads are discovered here.
final class InstallContainer: Container, @unchecked Sendable {
  let builds = Counter()
  var direct: Service { provide(.singleton) { self.record(Service()) } }
  var scoped: Service { provide(.singleton) { self.record(Service()) } }
  var contended: Service { provide(.transient) { self.record(Service()) } }
  var released: Service { provide(.transient) { self.record(Service()) } }

  private func record(_ service: Service) -> Service {
    builds.increment()
    return service
  }
}

/// The seed's composition root: a feature's proxy, wired to the app's.
final class InstallApp: Container, @unchecked Sendable {
  let builds = Counter()
  var analytics: Service {
    provide(.singleton) {
      self.builds.increment()
      return Service("app analytics")
    }
  }
}
final class InstallFeature: Container, @unchecked Sendable {
  var analytics: Service { provide(.singleton) { unimplemented("analytics") } }
}

@Suite("Overrides: installing one runs nothing", .timeLimit(.minutes(1)))
struct OverrideInstallTests {
  @Test("override(_:with:)'s factory runs once per resolution, never at install (issue 11)")
  func directOverrideRunsOnResolution() {
    let container = InstallContainer()
    let calls = Counter()
    container.override(\.direct) {
      calls.increment()
      return Service("mock")
    }
    #expect(calls.count == 0)
    #expect(container.direct.label == "mock")
    #expect(container.direct.label == "mock")
    #expect(calls.count == 2)
    // Another container of the type: the key is known, nothing is read again.
    let other = InstallContainer()
    other.override(\.direct) {
      calls.increment()
      return Service("other mock")
    }
    #expect(calls.count == 2)
    #expect(other.direct.label == "other mock")
    #expect(calls.count == 3)
    #expect(container.builds.count == 0 && other.builds.count == 0)
  }

  @Test("withOverrides' factory runs once per resolution, never at install (issue 11)")
  func scopedOverrideRunsOnResolution() {
    let container = InstallContainer()
    let calls = Counter()
    container.withOverrides {
      $0.override(\.scoped) {
        calls.increment()
        return Service("mock")
      }
    } run: {
      #expect(calls.count == 0)
      #expect(container.scoped.label == "mock")
      #expect(container.scoped.label == "mock")
    }
    #expect(calls.count == 2)
    #expect(container.scoped.label == "real")
    #expect(container.builds.count == 1)
  }

  @Test("wiring a proxy to another container builds nothing until the proxy is resolved")
  func wiringBuildsNothing() {
    let app = InstallApp()
    let feature = InstallFeature()
    feature.override(\.analytics) { app.analytics }
    #expect(app.builds.count == 0)
    #expect(feature.analytics.label == "app analytics")
    #expect(app.builds.count == 1)
  }

  @Test("32 threads resolving a newly overridden dependency at once each get one build of the override")
  func firstResolutionsAtOnce() {
    let container = InstallContainer()
    let calls = Counter()
    container.override(\.contended) {
      calls.increment()
      return Service("mock")
    }
    let labels = Guarded<[String]>([])
    onThreads(32) { _ in
      let label = container.contended.label
      labels.withLock { $0.append(label) }
    }
    #expect(labels.withLock { $0 } == Array(repeating: "mock", count: 32))
    #expect(calls.count == 32)
    #expect(container.builds.count == 0)
  }

  @Test("a container whose override was installed while the read was parked may go with the read's end")
  func releasedWithTheRead() {
    let container = InstallContainer()
    container.override(\.released) { Service("mock") }
    do {
      // Installed while the read waits: only the read keeps its store then.
      let other = InstallContainer()
      other.override(\.released) { Service("other mock") }
    }
    // The first value ends the read, which lets the other container go.
    #expect(container.released.label == "mock")
    #expect(container.released.label == "mock")
  }
}
