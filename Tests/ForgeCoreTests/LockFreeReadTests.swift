import Dispatch
import ForgeCore
import Testing

@Suite("Lock-free reads", .timeLimit(.minutes(1)))
struct LockFreeReadTests {
  /// Resolves `key` the way dialects do: the lock-free read first.
  func read(_ store: SlotStore<String>, _ key: String, label: String = "built") throws -> Thing {
    if let bits = key.identityBits, let published = store.published(bits: bits, as: Thing.self) {
      return published
    }
    return try store.resolve(key, lifetime: .cached, name: .text(key)) { Thing(label) }
  }

  @Test("the second read of a kept instance is served without the lock, and is the same instance")
  func servedLockFree() async {
    // In a process of its own: other tests' override scopes, running in
    // parallel here, rightly send every read to the locked path.
    await #expect(processExitsWith: .success) {
      let store = SlotStore<String>()
      let first = try store.resolve("k", lifetime: .cached, name: "k") { Thing() }
      let bits = "k".identityBits!
      precondition(store.published(bits: bits, as: Thing.self) === first)
      precondition(store.published(bits: bits, as: Int.self) == nil)  // another type is never served
      store.setOverride("k", name: "k") { Thing("override") }
      precondition(store.published(bits: bits, as: Thing.self) == nil)  // an override sends reads to the lock
    }
  }

  /// A store with a cached `leaf`, its instance and its bits: what the
  /// tests below read while other work runs.
  static func storeWithLeaf() throws -> (store: SlotStore<String>, leaf: Thing, bits: SlotKeyBits) {
    let store = SlotStore<String>()
    let leaf = try store.resolve("leaf", lifetime: .cached, name: "leaf") { Thing("leaf") }
    return (store, leaf, "leaf".identityBits!)
  }

  /// Whether `store` serves `instance` for `bits` without the lock both on
  /// a thread outside any task and in a task of its own.
  static func servedElsewhere(_ instance: Thing, by store: SlotStore<String>, for bits: SlotKeyBits) async -> Bool {
    let onThread = LockedValue(false)
    let thread = RealThread { onThread.current = store.published(bits: bits, as: Thing.self) === instance }
    thread.join()
    let inTask = await Task.detached { store.published(bits: bits, as: Thing.self) === instance }.value
    return onThread.current && inTask
  }

  @Test("while an async build records what it resolves, only its own task's reads leave the lock-free path")
  func recordingBuildElsewhere() async {
    // In a process of its own, as above. A kept dependency's first async
    // build records what its factory resolves; it once sent every read of
    // the process to the general path for as long as it ran.
    await #expect(processExitsWith: .success) {
      let (store, leaf, bits) = try LockFreeReadTests.storeWithLeaf()
      let started = Signal()
      let finish = AsyncGate()
      let database = try store.resolve("database", lifetime: .singleton, name: "database") {
        AsyncDependency<Thing>(name: "database", identity: AnyHashable("database"), lifetime: .singleton) {
          // The build's own reads are recorded: not the lock-free read.
          precondition(store.published(bits: bits, as: Thing.self) == nil)
          _ = try store.resolve("leaf", lifetime: .cached, name: "leaf") { Thing("second leaf") }
          started.raise()
          await finish.wait()
          return Thing("database")
        }
      }
      let build = Task.detached { try await database.value }
      precondition(started.wait())
      let servedElsewhere = await LockFreeReadTests.servedElsewhere(leaf, by: store, for: bits)
      precondition(servedElsewhere)
      // In an override scope, the scope still applies (while it lives).
      do {
        let scope = OverrideScope(parent: nil, entries: [:])
        precondition(OverrideScope.with(scope) { store.published(bits: bits, as: Thing.self) } == nil)
      }
      finish.open()
      let built = try await build.value
      precondition(built.label == "database")
      // What the build read is its recorded dependency.
      precondition(store.dependencyGraph().dependencies(of: "database").map(\.name) == ["leaf"])
      precondition(store.published(bits: bits, as: Thing.self) === leaf)
    }
  }

  @Test("while an asynchronous validation runs, only its own tasks' reads leave the lock-free path")
  func validationElsewhere() async {
    // In a process of its own, as above.
    await #expect(processExitsWith: .success) {
      let (store, leaf, bits) = try LockFreeReadTests.storeWithLeaf()
      let started = Signal()
      let finish = AsyncGate()
      let root = Validation.AsyncRoot(name: "root") {
        // Validating: the container's instance is not served.
        precondition(store.published(bits: bits, as: Thing.self) == nil)
        let child = await Task { store.published(bits: bits, as: Thing.self) }.value
        precondition(child == nil)
        started.raise()
        await finish.wait()
      }
      let validation = Task.detached { await Validation.runAsync([root], throwing: true) }
      precondition(started.wait())
      let servedElsewhere = await LockFreeReadTests.servedElsewhere(leaf, by: store, for: bits)
      precondition(servedElsewhere)
      finish.open()
      let report = await validation.value
      precondition(report.isValid)
      precondition(store.published(bits: bits, as: Thing.self) === leaf)
    }
  }

  @Test("every kept instance of a store with thousands of slots is served without the lock, across table growth")
  func manySlots() async {
    // In a process of its own, as above.
    await #expect(processExitsWith: .success) {
      let store = SlotStore<Int>()
      func bits(_ key: Int) -> SlotKeyBits { key.identityBits! }
      let things = try (0..<5_000).map { key in
        try store.resolve(key, lifetime: .cached, name: "\(key)") { Thing("\(key)") }
      }
      for key in 0..<5_000 {
        precondition(store.published(bits: bits(key), as: Thing.self) === things[key])
      }
      precondition(store.published(bits: bits(5_000), as: Thing.self) == nil)  // never resolved
    }
  }

  @Test("keys whose natural first word is 0 (\"\", 0) are served without the lock; -1, which has no bits, with it")
  func zeroFirstWords() async {
    // An empty table entry's first word is 0, and a lookup compares that
    // word before it asks whether the entry is empty. In a process of its
    // own, as above: another test's scope would send the reads to the lock.
    #expect("".identityBits?.first != 0 && 0.identityBits?.first != 0)
    #expect((-1).identityBits == nil)
    await #expect(processExitsWith: .success) {
      let strings = SlotStore<String>()
      let empty = try strings.resolve("", lifetime: .singleton, name: "empty") { Thing("") }
      precondition(strings.published(bits: "".identityBits!, as: Thing.self) === empty)
      let ints = SlotStore<Int>()
      let zero = try ints.resolve(0, lifetime: .singleton, name: "0") { Thing("0") }
      let minusOne = try ints.resolve(-1, lifetime: .singleton, name: "-1") { Thing("-1") }
      precondition(ints.published(bits: 0.identityBits!, as: Thing.self) === zero)
      precondition(ints.published(bits: 1.identityBits!, as: Thing.self) == nil)  // never resolved
      let again = try ints.resolve(-1, lifetime: .singleton, name: "-1") { Thing("again") }
      precondition(again === minusOne)
    }
  }

  @Test("keys whose lookups skip the second word all have the same one, and still find their own slots")
  func secondWordTags() throws {
    #expect(!ObjectIdentifier.identityUsesSecondWord && !Int.identityUsesSecondWord)
    #expect(!IdentityKey.identityUsesSecondWord && String.identityUsesSecondWord)
    let types = [Int.self, String.self, Thing.self].map { ObjectIdentifier($0 as Any.Type) }
    #expect(Set(types.map { $0.identityBits!.second }).count == 1)
    #expect(Set([0, 1, 42, Int.max, Int.min].map { $0.identityBits!.second }).count == 1)
    let objects = [TestKeyObject(), TestKeyObject()]
    #expect(Set(objects.map { IdentityKey($0).identityBits!.second }).count == 1)

    let store = SlotStore<ObjectIdentifier>()
    let things = try types.map { type in try store.resolve(type, lifetime: .singleton, name: "type") { Thing() } }
    for (type, thing) in zip(types, things) {
      #expect(try store.resolve(type, lifetime: .singleton, name: "type") { Thing() } === thing)
    }
    #expect(Set(things.map(ObjectIdentifier.init)).count == types.count)
  }

  @Test("a tagged type key is apart from its type's own key and from other tags")
  func taggedTypeKeys() throws {
    let types: [Any.Type] = [Int.self, String.self, Thing.self, Optional<Thing>.self]
    let keys = types.flatMap { type in [ObjectIdentifier(type)] + (1...3).map { ObjectIdentifier(type, tag: $0) } }
    #expect(Set(keys).count == types.count * 4)
    #expect(ObjectIdentifier(Thing.self, tag: 1) == ObjectIdentifier(Thing.self, tag: 1))

    // One store keeps a slot under each, and finds each one's own.
    let store = SlotStore<ObjectIdentifier>()
    let things = try keys.map { key in try store.resolve(key, lifetime: .singleton, name: "tagged") { Thing() } }
    for (key, thing) in zip(keys, things) {
      #expect(try store.resolve(key, lifetime: .singleton, name: "tagged") { Thing() } === thing)
    }
    #expect(Set(things.map(ObjectIdentifier.init)).count == keys.count)
  }

  #if DEBUG
    @Test("a read that trusts its key's type stops in a debug build when the key holds another type")
    func trustedTypeIsChecked() async throws {
      // An async handle's read does not compare the slot's type in release
      // builds: its key holds only that type's handles. A plain `Thing`
      // under such a key breaks that, and a debug build says so.
      let result = try #require(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          let store = SlotStore<ObjectIdentifier>()
          let key = ObjectIdentifier(Thing.self, tag: 1)
          _ = try store.resolve(key, lifetime: .singleton, name: "thing") { Thing() }
          _ = store.publishedAsyncValue(bits: key.identityBits, as: Thing.self)
        })
      let message = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(message.contains("a key whose slots hold only AsyncDependency<Thing> holds another type's slot"))
    }
  #endif

  @Test("clearing releases the instance at once when no reader holds it")
  func promptRelease() throws {
    let store = SlotStore<String>()
    weak var released: Thing?
    do {
      let thing = try read(store, "k")
      released = thing
      _ = try read(store, "k")
    }
    store.clearStored { _ in true }
    #expect(released == nil)
    let bits = try #require("k".identityBits)
    #expect(store.published(bits: bits, as: Thing.self) == nil)
  }

  @Test("readers racing with clears always get a live instance")
  func readersRaceClears() {
    let store = SlotStore<String>()
    let readersDone = Counter()
    let clears = Counter()
    onThreads(4) { thread in
      if thread == 0 {
        while readersDone.count < 3 {
          store.clearStored { _ in true }
          clears.increment()
        }
      } else {
        // Until the clearing thread has cleared often: on two cores a
        // reader's 20,000 reads can end before that thread first runs.
        var reads = 0
        while reads < 20_000 || clears.count < 100 {
          let thing = try! read(store, "k", label: "live")
          precondition(thing.label == "live")
          reads += 1
        }
        readersDone.increment()
      }
    }
    #expect(readersDone.count == 3)
    #expect(clears.count > 0)
  }

  @Test("long keys built at run time never alias another key's slot")
  func runtimeKeys() throws {
    let store = SlotStore<String>()
    for round in 0..<200 {
      // Heap strings, freed after each round so their addresses get reused.
      let key = String(repeating: "dependency-", count: 2) + String(round)
      let thing = try read(store, key, label: key)
      #expect(thing.label == key)
      #expect(try read(store, key).label == key)
    }
  }

  @Test("two stores with the same keys keep separate instances")
  func storesDoNotMix() throws {
    let a = SlotStore<String>()
    let b = SlotStore<String>()
    let fromA = try read(a, "k", label: "a")
    let fromB = try read(b, "k", label: "b")
    #expect(try read(a, "k") === fromA)
    #expect(try read(b, "k") === fromB)
  }

  @Test("a store created where a released one lived never serves the old one's slots")
  func storeIdentityNotReused() throws {
    for _ in 0..<50 {
      let store = SlotStore<String>()
      #expect(try read(store, "k", label: "fresh").label == "fresh")
    }
  }
}
