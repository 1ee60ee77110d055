import Forge
import ForgeCore
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An instance made of the parts its factory read, compared by identity.
final class Built: Sendable {
  let label: String
  let parts: [Service]
  init(_ label: String, _ parts: [Service] = []) {
    self.label = label
    self.parts = parts
  }
}

/// Dependencies shaped like the reference model's: `t1` and `t2` leaves
/// (`t2` reads `t1`), and kept instances that read them.
final class ScopeContainer: Container, @unchecked Sendable {
  let buildCounts = LockedValue<[String: Int]>([:])
  /// Raised when `slowDependent`'s factory starts; it goes on once
  /// `proceed` is raised.
  let started = Signal()
  let proceed = Signal()

  func count(_ name: String) { buildCounts.withValue { $0[name, default: 0] += 1 } }
  func builds(of name: String) -> Int { buildCounts.current[name] ?? 0 }

  var t1: Service { provide(.singleton) { Service("real t1") } }
  var t2: Service { provide { Service("real t2 with \(self.t1.label)") } }
  var unrelated: Service { provide { Service("real unrelated") } }
  var s2: Built {
    provide(.singleton) {
      self.count("s2")
      return Built("s2", [self.t1])
    } preview: {
      Built("preview s2")
    }
  }
  var c1: Built {
    provide(.cached) {
      self.count("c1")
      return Built("c1", [self.t1])
    }
  }
  var c2: Built {
    provide(.cached) {
      self.count("c2")
      return Built("c2", [self.t2])
    }
  }
  var slowS2: Built {
    provide(.singleton) {
      self.count("slowS2")
      usleep(20_000)  // long enough for the other tasks to ask meanwhile
      return Built("slowS2", [self.t1])
    }
  }
  var plain: Built {
    provide(.singleton) {
      self.count("plain")
      return Built("plain")
    }
  }
  var slowDependent: Built {
    provide(.singleton) {
      self.count("slowDependent")
      self.started.raise()
      self.proceed.wait()
      return Built("slowDependent", [self.t1])
    }
  }
}

@Suite("withOverrides scopes: the engine's regressions", .timeLimit(.minutes(1)))
struct ScopeRegressionTests {
  let c = ScopeContainer()

  @Test("a scope sees its override in a singleton another thread was building when the scope began")
  func singletonBuiltByAnotherThread() {
    let outside = RealThread { _ = self.c.slowDependent }
    c.started.wait()
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      c.proceed.raise()
      #expect(c.slowDependent.parts[0].label == "mock t1")
      #expect(c.slowDependent === c.slowDependent)
    }
    outside.join()
    #expect(c.slowDependent.parts[0].label == "real t1")
  }

  @Test("32 tasks of one scope build a singleton that reads an override once", arguments: [false, true])
  func exactlyOnceInScope(builtBefore: Bool) async {
    if builtBefore { _ = c.slowS2 }
    let buildsBefore = c.builds(of: "slowS2")
    let seen = IdentitySet()
    await c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<32 {
          group.addTask { seen.insert(self.c.slowS2) }
        }
      }
    }
    #expect(seen.count == 1)
    #expect(c.builds(of: "slowS2") == buildsBefore + 1)
  }

  @Test("a nested scope that overrides something unrelated shares the outer scope's instance")
  func nestedUnrelated() {
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      let outer = c.s2
      c.withOverrides {
        $0.override(\.unrelated) { Service("mock unrelated") }
      } run: {
        #expect(c.s2 === outer)
      }
      #expect(c.s2 === outer)
    }
  }

  @Test("a nested scope that overrides nothing neither loses nor forks the outer scope's instance")
  func nestedEmpty() {
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      let outer = c.s2
      var inner: Built?
      c.withOverrides { _ in
      } run: {
        inner = c.s2
      }
      #expect(inner === outer)
      #expect(c.s2 === outer)
    }
    // Read first in the inner scope: the instance is the outer scope's.
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1 again") }
    } run: {
      var inner: Built?
      c.withOverrides { _ in
      } run: {
        inner = c.s2
      }
      #expect(c.s2 === inner)
      #expect(inner?.parts[0].label == "mock t1 again")
    }
  }

  @Test("a nested scope that overrides the same dependency again builds its own instance")
  func nestedShadowing() {
    c.withOverrides {
      $0.override(\.t1) { Service("outer t1") }
    } run: {
      let outer = c.s2
      c.withOverrides {
        $0.override(\.t1) { Service("inner t1") }
      } run: {
        #expect(c.s2 !== outer)
        #expect(c.s2.parts[0].label == "inner t1")
      }
      #expect(c.s2 === outer)
    }
  }

  @Test("a reset inside a scope clears the scope's instances of that lifetime")
  func resetInsideScope() {
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      let cached = c.c1
      let singleton = c.s2
      c.resetCached()
      #expect(c.c1 !== cached)
      #expect(c.s2 === singleton)
      c.resetAll()
      #expect(c.s2 !== singleton)
      #expect(c.s2.parts[0].label == "mock t1")
    }
  }

  @Test("what counts is what an instance's own build resolved, not what an override factory did")
  func edgesOfOwnBuildsOnly() {
    // t2's first build ever is an override's, reading nothing.
    c.withOverrides {
      $0.override(\.t2) { Service("mock t2") }
    } run: {
      _ = c.t2
    }
    // c2 is built outside from real factories: c2 → t2 → t1.
    _ = c.c2
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      #expect(c.c2.parts[0].label == "real t2 with mock t1")
    }
  }

  @Test("a singleton first built by an override factory that read something is the container's, built once")
  func overrideEdgesDoNotStick() {
    c.withOverrides {
      $0.override(\.plain) { Built("override", [self.c.t1]) }
    } run: {
      _ = c.plain
    }
    // The real factory reads nothing: an instance built inside a scope
    // that overrides t1 is the container's, kept after the scope.
    var inScope: Built?
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      inScope = c.plain
      #expect(c.plain === inScope)
    }
    #expect(c.plain === inScope)
    #expect(c.builds(of: "plain") == 1)
  }

  @Test("an override of X beats an instance of X kept for the scope, and so does X's preview")
  func overrideBeatsScopeInstance() {
    c.withOverrides {
      $0.override(\.t1) { Service("mock t1") }
    } run: {
      _ = c.s2
      Forge.withPreviewMode {
        #expect(c.s2.label == "preview s2")
      }
      c.override(\.s2) { Built("o2") }
      #expect(c.s2.label == "o2")
      c.removeOverride(for: \.s2)
      #expect(c.s2.parts[0].label == "mock t1")
    }
  }

  // In a process of their own: whether an escaped task saw a scope used to
  // depend on whether some other test was inside one at that moment.
  @Test("a task started inside a scope keeps seeing its overrides after the closure returns")
  func escapedTask() async {
    await #expect(processExitsWith: .success) {
      let c = ScopeContainer()
      let release = Signal()
      var escaped: Task<String, Never>?
      c.withOverrides {
        $0.override(\.t1) { Service("mock t1") }
      } run: {
        escaped = Task {
          while !release.isRaised { try? await Task.sleep(for: .milliseconds(1)) }
          return c.t1.label
        }
      }
      release.raise()
      let label = await escaped?.value
      exit(label == "mock t1" && c.t1.label == "real t1" ? 0 : 1)
    }
  }

  @Test("a task started inside withPreviewMode keeps preview mode after the closure returns")
  func escapedPreviewTask() async {
    await #expect(processExitsWith: .success) {
      let c = ScopeContainer()
      let release = Signal()
      let escaped = Forge.withPreviewMode {
        Task {
          while !release.isRaised { try? await Task.sleep(for: .milliseconds(1)) }
          return c.s2.label
        }
      }
      release.raise()
      let label = await escaped.value
      exit(label == "preview s2" && c.s2.label == "s2" ? 0 : 1)
    }
  }
}
