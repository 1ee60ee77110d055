import ForgeCore
import Testing

@Suite("Override layers", .timeLimit(.minutes(1)))
struct OverrideTests {
  @Test("a container-wide override beats the factory, even after the instance was built")
  func containerOverride() throws {
    let store = SlotStore<String>()
    let real = try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }
    store.setOverride("s", name: "s") { Thing("mock") }
    let first = try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }
    let second = try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }
    #expect(first.label == "mock")
    #expect(first !== second)  // a transient override is never kept
    store.removeOverride("s")
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing() } === real)
  }

  @Test("an override with a stored lifetime keeps its own instance apart from the original")
  func storedOverride() throws {
    let store = SlotStore<String>()
    let real = try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }
    store.setOverride("s", name: "s", lifetime: .cached) { Thing("mock") }
    let mock = try store.resolve("s", lifetime: .singleton, name: "s") { Thing() }
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing() } === mock)
    store.clearStored { $0 == .cached }
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing() } !== mock)
    store.removeOverride("s")
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing() } === real)
  }

  @Test("an override installed before its key is first resolved applies; other keys stay cached")
  func overrideBeforeFirstResolution() throws {
    let store = SlotStore<String>()
    store.setOverride("s", name: "s") { Thing("mock") }
    let other = try store.resolve("other", lifetime: .singleton, name: "other") { Thing("other") }
    for _ in 0..<3 {  // the first resolution finds each slot; later ones know it
      #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }.label == "mock")
      #expect(try store.resolve("other", lifetime: .singleton, name: "other") { Thing() } === other)
    }
    store.removeOverride("s")
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }.label == "real")
    store.setOverride("s", name: "s") { Thing("again") }
    store.removeAllOverrides()
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing("new") }.label == "real")
  }

  @Test("threads reading a kept override while another thread replaces and clears it see whole instances")
  func storedOverrideUnderChurn() throws {
    let store = SlotStore<String>()
    let real = try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }
    store.setOverride("s", name: "s", lifetime: .cached) { Thing("mock") }
    let seen = Counter()
    onThreads(3) { index in
      for round in 0..<2_000 {
        if index == 0 {
          switch round % 3 {
          case 0: store.clearStored { $0 == .cached }
          case 1: store.setOverride("s", name: "s", lifetime: .cached) { Thing("mock") }
          default: store.removeOverride("s")
          }
        } else {
          let thing = try! store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }
          if thing.label == "mock" || thing === real { seen.increment() }
        }
      }
    }
    #expect(seen.count == 4_000)
  }

  @Test("override factories that resolve overridden keys apply at every depth, past the per-depth hazard pointers")
  func nestedOverridesDeeperThanHeldHazards() async {
    // In a process of its own: other tests' override scopes, running in
    // parallel here, would send every read to the path that retains.
    await #expect(processExitsWith: .success) {
      let store = SlotStore<String>()
      let depth = ThreadFastState.heldOverrideDepths + 4
      @Sendable func resolve(_ index: Int) throws -> Thing {
        try store.resolve("k\(index)", lifetime: .transient, name: "k\(index)") { Thing("real") }
      }
      for index in 0..<depth {
        store.setOverride("k\(index)", name: "k\(index)") {
          Thing(index + 1 < depth ? "o\(index)," + (try resolve(index + 1)).label : "o\(index)")
        }
      }
      let expected = (0..<depth).map { "o\($0)" }.joined(separator: ",")
      for _ in 0..<3 {  // the first resolutions find the slots; later ones hold the overrides
        let label = try resolve(0).label
        precondition(label == expected, label)
      }
    }
  }

  @Test("threads resolving through nested overrides while another thread replaces them see whole instances")
  func nestedOverridesUnderChurn() throws {
    let store = SlotStore<String>()
    @Sendable func install(_ round: Int) {
      store.setOverride("inner", name: "inner") { Thing("inner") }
      store.setOverride("outer", name: "outer") {
        Thing("outer+" + (try store.resolve("inner", lifetime: .singleton, name: "inner") { Thing("real") }).label)
      }
    }
    install(0)
    let seen = Counter()
    onThreads(3) { index in
      for round in 0..<2_000 {
        if index == 0 {
          if round % 2 == 0 { install(round) } else { store.removeOverride("inner") }
        } else {
          let thing = try! store.resolve("outer", lifetime: .singleton, name: "outer") { Thing("real") }
          if thing.label == "outer+inner" || thing.label == "outer+real" { seen.increment() }
        }
      }
    }
    #expect(seen.count == 4_000)
    store.removeAllOverrides()  // the outer override's factory holds the store
  }

  @Test("scoped overrides beat container-wide ones and end with the scope")
  func scopedOverride() throws {
    let store = SlotStore<String>()
    store.setOverride("s", name: "s") { Thing("container") }
    let scope = scopeOverriding(store, "s") { Thing("scoped") }
    let inside = try OverrideScope.with(scope) {
      try store.resolve("s", lifetime: .singleton, name: "s") { Thing() }
    }
    #expect(inside.label == "scoped")
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing() }.label == "container")
  }

  @Test("a scope finds every override, whether it scans a few entries or looks up many, and defers to its parent")
  func scopeLookups() throws {
    for count in [1, 16, 17, 40] {  // 16 is the most a scope scans
      let store = SlotStore<String>()
      let keys = (0..<count).map { "key-\($0)-" + String(repeating: "x", count: $0 % 3 == 0 ? 40 : 1) }
      let overrides = keys.map { key in store.makeOverride(key, name: key) { Thing("scoped \(key)") } }
      let parentEntry = store.makeOverride("outer", name: "outer") { Thing("parent") }
      let parent = OverrideScope(parent: nil, entries: [parentEntry.slot.target: parentEntry])
      let scope = OverrideScope(
        parent: parent,
        entries: Dictionary(uniqueKeysWithValues: overrides.map { ($0.slot.target, $0) })
      )
      try OverrideScope.with(scope) { () throws -> Void in
        for key in keys {
          let read = try store.resolve(key, lifetime: .transient, name: .text(key)) { Thing("real") }
          #expect(read.label == "scoped \(key)")
        }
        #expect(try store.resolve("outer", lifetime: .transient, name: "outer") { Thing("real") }.label == "parent")
        #expect(try store.resolve("other", lifetime: .transient, name: "other") { Thing("real") }.label == "real")
      }
    }
  }

  @Test("instances built from a scoped override are kept by the scope, not the store")
  func taintedInstancesStayInScope() throws {
    let store = SlotStore<String>()
    func leaf() throws -> Thing { try store.resolve("leaf", lifetime: .singleton, name: "leaf") { Thing("real leaf") } }
    func parent() throws -> [Thing] {
      try store.resolve("parent", lifetime: .singleton, name: "parent") { [try leaf()] }
    }
    let scope = scopeOverriding(store, "leaf") { Thing("mock leaf") }
    try OverrideScope.with(scope) {
      let first = try parent()
      #expect(first[0].label == "mock leaf")
      #expect(try parent()[0] === first[0])  // kept within the scope
    }
    #expect(try parent()[0].label == "real leaf")
  }

  @Test("instances kept before a scope are rebuilt inside it when they depend on an overridden dependency")
  func keptDependentsRebuiltInScope() throws {
    let store = SlotStore<String>()
    func leaf() throws -> Thing { try store.resolve("leaf", lifetime: .singleton, name: "leaf") { Thing("real leaf") } }
    func middle() throws -> [Thing] {
      try store.resolve("middle", lifetime: .transient, name: "middle") { [try leaf()] }
    }
    func root() throws -> [[Thing]] { try store.resolve("root", lifetime: .singleton, name: "root") { [try middle()] } }
    func unrelated() throws -> Thing {
      try store.resolve("unrelated", lifetime: .singleton, name: "unrelated") { Thing() }
    }
    let realRoot = try root()
    let realUnrelated = try unrelated()
    try OverrideScope.with(scopeOverriding(store, "leaf") { Thing("mock leaf") }) {
      let scoped = try root()
      #expect(scoped[0][0].label == "mock leaf")
      #expect(try root()[0][0] === scoped[0][0])
      #expect(try unrelated() === realUnrelated)
    }
    #expect(try root()[0][0] === realRoot[0][0])
  }

  @Test("concurrent tasks with their own scopes never see each other's overrides")
  func parallelIsolation() async throws {
    let store = SlotStore<String>()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<20 {
        group.addTask {
          let label = "task \(index)"
          let scope = scopeOverriding(store, "s") { Thing(label) }
          try await OverrideScope.with(scope) {
            for _ in 0..<50 {
              let thing = try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }
              #expect(thing.label == label)
              await Task.yield()
            }
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try store.resolve("s", lifetime: .singleton, name: "s") { Thing("real") }.label == "real")
  }

  @Test(
    "key discovery reads an accessor once, on a thread of its own, parked at its provide until handed a value",
    .timeLimit(.minutes(1)))
  func keyDiscovery() throws {
    let store = SlotStore<String>()
    let reads = Counter()
    let finished = Counter()
    let accessor: @Sendable () -> Thing = {
      reads.increment()
      guard let value = try? store.capturing("accessor", as: Thing.self) else {
        fatalError("the real accessor must not run during capture")
      }
      finished.increment()
      return value
    }
    func discover() -> (key: String, parked: ParkedKeyRead?)? {
      store.discoverKey(
        alias: "alias", readAlias: "OverrideTests.keyDiscovery", request: "test", as: Thing.self, read: accessor)
    }
    let first = try #require(discover())
    #expect(first.key == "accessor")
    let parked = try #require(first.parked)
    #expect(finished.count == 0, "the read returned without a value")
    #expect(discover()?.key == "accessor")
    #expect(reads.count == 1)
    parked.resume(with: Thing("first value"))
    #expect(finished.count == 1)
    #expect(!parked.isWaiting)
    #expect(discover()?.parked == nil)
    #expect(reads.count == 1)
    #expect(try store.capturing("accessor", as: Thing.self) == nil)
  }

  @Test(
    "while a key-path read waits, its overrides' store reads on the general path, until the first value or their end",
    .timeLimit(.minutes(1)))
  func parkedReadHoldsGeneralPath() throws {
    let store = SlotStore<String>()
    let accessor: @Sendable () -> Thing = { (try? store.capturing("held", as: Thing.self)) ?? Thing("unreached") }
    let discovered = try #require(
      store.discoverKey(alias: "held", readAlias: "OverrideTests.held", request: "test", as: Thing.self, read: accessor)
    )
    let parked = try #require(discovered.parked)
    #expect(!store.readsTakeGeneralPath)
    do {
      let unresolved = store.makeOverride("held", name: "held", parkedRead: parked) { Thing("mock") }
      #expect(store.readsTakeGeneralPath)
      withExtendedLifetime(unresolved) {}
    }
    #expect(!store.readsTakeGeneralPath, "an override that went kept its store on the general path")
    store.setOverride("held", name: "held", parkedRead: parked) { Thing("mock") }
    #expect(store.readsTakeGeneralPath)
    #expect(try store.resolve("held", lifetime: .transient, name: "held") { Thing("real") }.label == "mock")
    #expect(!parked.isWaiting)
    #expect(!store.readsTakeGeneralPath, "the first value did not give the store its fronts back")
  }
}

/// A scope that replaces `key` in `store` with `make`.
func scopeOverriding(_ store: SlotStore<String>, _ key: String, make: @escaping @Sendable () -> Thing) -> OverrideScope
{
  let entry = store.makeOverride(key, name: key, make: make)
  return OverrideScope(parent: OverrideScope.current, entries: [entry.slot.target: entry])
}
