import ForgeCore
import ForgeTestSupport
import Testing

@Suite("An object key's cached slot", .timeLimit(.minutes(1)))
struct CachedSlotTests {
  @Test(
    "the first store that reads an object's slot caches it while it lives; other stores are served their own")
  func cachedForOneStore() async {
    // In a process of its own: a parallel test's scope would send reads to
    // the lock, and the cache is filled and used by the lock-free read.
    await #expect(processExitsWith: .success) {
      let key = TestKeyObject()
      func read(_ store: SlotStore<IdentityKey>) -> Thing? {
        var known: Unmanaged<AnySlot>?
        return store.publishedObjectValue(serial: key.keySerial, life: key.keyLife, as: Thing.self, known: &known)
      }
      do {
        let first = SlotStore<IdentityKey>()
        let firstThing = try first.resolve(IdentityKey(key), lifetime: .singleton, name: "thing") { Thing("first") }
        precondition(key.keyLife.cachedSlot(inStore: first.serial) == nil, "cached before any lock-free read")
        precondition(read(first) === firstThing)
        precondition(key.keyLife.cachedSlot(inStore: first.serial) != nil, "the lock-free read cached nothing")
        precondition(read(first) === firstThing, "the cached slot served another instance")

        let second = SlotStore<IdentityKey>()
        let secondThing = try second.resolve(IdentityKey(key), lifetime: .singleton, name: "thing") { Thing("second") }
        precondition(read(second) === secondThing, "the second store was served the first one's instance")
        precondition(key.keyLife.cachedSlot(inStore: second.serial) == nil, "the first store's cache was replaced")
        precondition(read(first) === firstThing)
      }
      // Once the store that cached is gone, the next store to read the
      // object caches its own slot (a short-lived pod would otherwise leave
      // the app's pod the table read).
      // A store made at the gone one's address is never served its slot:
      // serials are never reused, and the cache went with the store.
      for round in 0..<200 {
        let store = SlotStore<IdentityKey>()
        let thing = try store.resolve(IdentityKey(key), lifetime: .singleton, name: "thing") { Thing("\(round)") }
        precondition(read(store) === thing, "round \(round): served another store's instance")
        precondition(
          key.keyLife.cachedSlot(inStore: store.serial) != nil,
          "round \(round): the cache stayed with a store that is gone")
        precondition(read(store) === thing, "round \(round): the cached slot served another instance")
      }
      // While the store that cached lives, it keeps the cache.
      let keeper = SlotStore<IdentityKey>()
      let kept = try keeper.resolve(IdentityKey(key), lifetime: .singleton, name: "thing") { Thing("keeper") }
      precondition(read(keeper) === kept)
      let other = SlotStore<IdentityKey>()
      let otherThing = try other.resolve(IdentityKey(key), lifetime: .singleton, name: "thing") { Thing("other") }
      precondition(read(other) === otherThing)
      precondition(key.keyLife.cachedSlot(inStore: other.serial) == nil, "a live store's cache was taken over")
      precondition(key.keyLife.cachedSlot(inStore: keeper.serial) != nil, "a live store lost its cache")
      // A store that goes without the cache leaves it where it is.
      do {
        let passing = SlotStore<IdentityKey>()
        let passingThing = try passing.resolve(IdentityKey(key), lifetime: .singleton, name: "thing") {
          Thing("passing")
        }
        precondition(read(passing) === passingThing && read(passing) === passingThing)
      }
      precondition(
        key.keyLife.cachedSlot(inStore: keeper.serial) != nil, "a store that went took a live store's cache with it")
      precondition(read(keeper) === kept)
    }
  }

  @Test("a transient's read hands its build the cached slot, which is the slot the store holds")
  func transientKnownSlot() async {
    await #expect(processExitsWith: .success) {
      let key = TestKeyObject()
      let store = SlotStore<IdentityKey>()
      let builds = Counter()
      func resolve() throws -> Thing {
        var known: Unmanaged<AnySlot>?
        if let value = store.publishedObjectValue(
          serial: key.keySerial, life: key.keyLife, as: Thing.self, known: &known)
        {
          return value
        }
        if let cached = key.keyLife.cachedSlot(inStore: store.serial) {
          precondition(known?.toOpaque() == cached.slot.toOpaque(), "the miss was handed another slot")
        }
        return try store.resolveObjectMissed(
          known, serial: key.keySerial, key: IdentityKey(key), lifetime: .transient, name: "thing"
        ) {
          builds.increment()
          return Thing()
        }
      }
      var seen: [Thing] = []
      for _ in 0..<5 { seen.append(try resolve()) }
      precondition(key.keyLife.cachedSlot(inStore: store.serial) != nil, "a transient's slot was never cached")
      precondition(
        builds.count == 5 && Set(seen.map(ObjectIdentifier.init)).count == 5,
        "a transient was not built on every resolution")
    }
  }

  @Test("the cached read hits only through this store's cached slot, and tells its miss what it learnt")
  func cachedReadMisses() async {
    // In a process of its own: a parallel test's scope raises the gate,
    // which sends every read the long way.
    await #expect(processExitsWith: .success) {
      let key = TestKeyObject()
      let store = SlotStore<IdentityKey>()
      var misses: [String] = []
      func resolve(_ store: SlotStore<IdentityKey>, _ label: String) -> Thing {
        store.resolveCachedObject(serial: key.keySerial, life: key.keyLife, as: Thing.self) { miss in
          misses.append(Self.describe(miss))
          return try! store.resolveCachedObjectMissed(
            miss, serial: key.keySerial, life: key.keyLife, key: IdentityKey(key), lifetime: .singleton,
            name: "thing"
          ) { Thing(label) }
        }
      }
      // Built on the first read, cached in the key's life by the second
      // (the table read), served from the cache by the third.
      let built = resolve(store, "first")
      precondition(resolve(store, "again") === built)
      precondition(resolve(store, "again") === built)
      precondition(misses == ["unread", "unread"], "misses: \(misses)")
      precondition(key.keyLife.cachedSlot(inStore: store.serial) != nil, "nothing was cached")

      // Another store is never served the cached slot: it reads the table.
      misses = []
      let other = SlotStore<IdentityKey>()
      let otherThing = resolve(other, "other")
      precondition(otherThing !== built && otherThing.label == "other")
      precondition(resolve(other, "other") === otherThing)
      precondition(misses == ["unread", "unread"], "misses: \(misses)")

      // A container-wide override sends the read to the general path,
      // which serves it; once it is removed, the cache serves again.
      misses = []
      let mock = Thing("mock")
      store.setOverride(IdentityKey(key), name: "thing") { mock }
      precondition(resolve(store, "again") === mock, "the override was not served")
      precondition(misses == ["general"], "misses: \(misses)")
      store.removeOverride(IdentityKey(key))
      misses = []
      precondition(resolve(store, "again") === built)
      precondition(misses.isEmpty, "misses: \(misses)")

      // A transient's slot is cached too; its instance is never kept, so
      // every read misses as unpublished, and builds with the cached slot.
      let transientKey = TestKeyObject()
      var transientMisses: [String] = []
      func resolveTransient() -> Thing {
        store.resolveCachedObject(serial: transientKey.keySerial, life: transientKey.keyLife, as: Thing.self) { miss in
          transientMisses.append(Self.describe(miss))
          return try! store.resolveCachedObjectMissed(
            miss, serial: transientKey.keySerial, life: transientKey.keyLife, key: IdentityKey(transientKey),
            lifetime: .transient, name: "transient"
          ) { Thing() }
        }
      }
      let transients = (0..<4).map { _ in resolveTransient() }
      precondition(Set(transients.map(ObjectIdentifier.init)).count == 4, "a transient was kept")
      precondition(transientMisses.suffix(2) == ["unpublished", "unpublished"], "misses: \(transientMisses)")

      // Read while a build that records what it reads is in progress (a
      // singleton's first build), the transient misses as skipped: the
      // thread may not read lock-free, and the general path records it
      // (with the slot the object caches).
      transientMisses = []
      let holderKey = TestKeyObject()
      let held = try! store.resolve(IdentityKey(holderKey), lifetime: .singleton, name: "holder") {
        resolveTransient()
      }
      precondition(transientMisses == ["skipped"], "misses: \(transientMisses)")
      precondition(!transients.contains { $0 === held }, "a transient was kept")
    }
  }

  /// `key`'s singleton in `store`: the lock-free read (which caches the
  /// slot), else a build with `make`.
  static func readOrBuild(_ key: TestKeyObject, in store: SlotStore<IdentityKey>, make: () -> Thing) -> Thing? {
    var known: Unmanaged<AnySlot>?
    if let value = store.publishedObjectValue(serial: key.keySerial, life: key.keyLife, as: Thing.self, known: &known) {
      return value
    }
    return try? store.resolveObjectMissed(
      known, serial: key.keySerial, key: IdentityKey(key), lifetime: .singleton, name: "thing", factory: make)
  }

  /// A miss's case, for the tests' expectations.
  static func describe(_ miss: ObjectReadMiss) -> String {
    switch miss {
    case .general: "general"
    case .unread: "unread"
    case .cached: "cached"
    case .unpublished: "unpublished"
    case .skipped: "skipped"
    }
  }

  @Test("threads reading one store while the store that cached its slot goes, and stores of their own come and go")
  func cacheMovesOnUnderReaders() async {
    // In a process of its own: a parallel test's scope would send every
    // read to the lock, and the cache is filled, given up and taken over
    // by lock-free reads.
    await #expect(processExitsWith: .success) {
      let key = TestKeyObject()
      @Sendable func read(_ store: SlotStore<IdentityKey>, _ label: String) -> Thing? {
        Self.readOrBuild(key, in: store) { Thing(label) }
      }
      let shared = SlotStore<IdentityKey>()
      let sharedThing = read(shared, "shared")
      // Another store reads first and keeps the cache while it lives.
      let first = LockedValue<SlotStore<IdentityKey>?>(SlotStore<IdentityKey>())
      let firstSerial = first.withValue { store in
        for _ in 0..<2 { _ = read(store!, "first") }
        return store!.serial
      }
      precondition(key.keyLife.cachedSlot(inStore: firstSerial) != nil, "the first store's reads cached nothing")
      let wrong = Counter()
      onThreads(4) { thread in
        for round in 0..<3_000 {
          // The store that cached goes while the others read the shared one.
          if thread == 0 && round == 200 { first.withValue { $0 = nil } }
          if read(shared, "shared again") !== sharedThing { wrong.increment() }
          if round % 8 == thread {
            let own = SlotStore<IdentityKey>()
            let ownThing = read(own, "own")
            if read(own, "own again") !== ownThing || ownThing === sharedThing { wrong.increment() }
          }
        }
      }
      precondition(wrong.count == 0, "\(wrong.count) reads were served another store's instance")
      precondition(key.keyLife.cachesASlot, "no store took the cache over")
    }
  }

  @Test("threads reading one object in stores they make and drop each get their own store's instance, built once")
  func storesComeAndGoOnThreads() {
    let key = TestKeyObject()
    let wrong = Counter()
    onThreads(4) { thread in
      for round in 0..<500 {
        let store = SlotStore<IdentityKey>()
        let builds = Counter()
        func resolve() -> Thing? {
          Self.readOrBuild(key, in: store) {
            builds.increment()
            return Thing("\(thread)-\(round)")
          }
        }
        let first = resolve()
        for _ in 0..<3 where resolve() !== first { wrong.increment() }
        if first?.label != "\(thread)-\(round)" || builds.count != 1 { wrong.increment() }
      }
    }
    #expect(wrong.count == 0)
  }
}
