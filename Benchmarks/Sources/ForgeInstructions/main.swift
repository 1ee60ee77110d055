// Runs N operations of one scenario for one system, for instruction counts
// under `valgrind --tool=callgrind` (Scripts/instructions.py runs it with
// two values of N and divides the difference, so start-up cancels out),
// and times hits over many distinct dependencies (the scaling curve).
//
//   forge-instructions hit forge 100000
//   forge-instructions override swiftpod 100000
//   forge-instructions scale swiftpod 5000
//
// Only the Forge modules: no peers and no harness, so it builds quickly
// and its counts are ours alone.

import DependencyFetcher
import Dispatch
import Forge
import ForgeInject
import SwiftPod

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

final class Leaf: Sendable { init() {} }

/// An async singleton whose first build is still running: it says it has
/// started, then waits far longer than any count takes.
final class SlowLeaf: Sendable {
  static let started = DispatchSemaphore(value: 0)
  static func open() async -> SlowLeaf {
    started.signal()
    try? await Task.sleep(for: .seconds(3_600))
    return SlowLeaf()
  }
}
final class TransientLeaf: Sendable, TransientMarker { init() {} }
/// The type a transient is declared as where apps declare one: a protocol
/// (not class-bound, as most are).
protocol TransientMarker: Sendable {}

/// Issue 5's chain A(B(C)): A and B transient, C a singleton.
final class ChainC: Sendable { init() {} }
final class ChainB: Sendable {
  let c: ChainC
  init(c: ChainC) { self.c = c }
}
final class ChainA: Sendable {
  let b: ChainB
  init(b: ChainB) { self.b = b }
}

/// What "by hand" means: a stored `let` for a kept instance, an initialiser
/// call for a transient one.
final class HandContainer: Sendable {
  let leaf = Leaf()
  let chainC = ChainC()
}

final class InstructionContainer: Container, @unchecked Sendable {
  /// A key per argument: `new-keys` makes a slot for each.
  func perArgument(_ id: Int) -> TransientLeaf { provide(.transient, key: "item-\(id)") { TransientLeaf() } }
  /// A kept instance per argument: `kept-keys` makes a slot for each.
  func keptPerArgument(_ id: Int) -> Leaf { provide(.cached, key: "user-\(id)") { Leaf() } }
  var leaf: Leaf { provide(.singleton) { Leaf() } }
  var transientLeaf: TransientLeaf { provide(.transient) { TransientLeaf() } }
  var transientMarker: any TransientMarker { provide(.transient) { TransientLeaf() } }
  var previewedMarker: any TransientMarker {
    provide(.transient) {
      TransientLeaf()
    } preview: {
      TransientLeaf()
    }
  }
  func scaled(_ index: Int) -> Leaf { provide(.singleton, key: Self.keys[index]) { Leaf() } }
  static let keys = (0..<20_000).map { "leaf\($0)" }
  var asyncLeaf: AsyncDependency<Leaf> { provide(.singleton) { Leaf() } }
  /// Factories that capture the container, as most apps' do (`{
  /// Database(logger: self.logger) }`): an async dependency's handle
  /// carries its factory, so its hit forms the closure.
  var capturingLeaf: Leaf { provide(.singleton) { self.madeLeaf() } }
  var capturingAsyncLeaf: AsyncDependency<Leaf> { provide(.singleton) { self.madeLeaf() } }
  @inline(never) func madeLeaf() -> Leaf { Leaf() }
  var mainActorLeaf: MainActorDependency<Leaf> { provide(.singleton) { @MainActor in Leaf() } }
  var slowLeaf: AsyncDependency<SlowLeaf> { provide(.singleton) { await SlowLeaf.open() } }
  var chainC: ChainC { provide(.singleton) { ChainC() } }
  var chainB: ChainB { provide(.transient) { ChainB(c: self.chainC) } }
  var chainA: ChainA { provide(.transient) { ChainA(b: self.chainB) } }
}

let podLeaf = Provider { _ in Leaf() }
/// A provider as apps declare one outside `main.swift` (here a `static
/// let`): Swift initialises it lazily, so each read checks it first, as
/// DependencyFetcher's `static let` services are.
enum LazyProviders {
  static let leaf = Provider { _ in Leaf() }
}
let podTransientLeaf = Provider(scope: AlwaysCreateNewScope()) { _ in TransientLeaf() }
let podTransientMarker = Provider(scope: AlwaysCreateNewScope()) { _ -> any TransientMarker in TransientLeaf() }
let podChainC = Provider { _ in ChainC() }
let podChainB = Provider(scope: AlwaysCreateNewScope()) { pod in ChainB(c: pod.resolve(podChainC)) }
let podChainA = Provider(scope: AlwaysCreateNewScope()) { pod in ChainA(b: pod.resolve(podChainB)) }

extension Service where T == Leaf {
  static let instructionLeaf = Service { Leaf() }
}

let podAsyncLeaf = AsyncProvider { _ in Leaf() }
let asyncServiceLeaf = AsyncService { _ in Leaf() }
let podMainActorLeaf = MainActorProvider { _ in Leaf() }
let podSlowLeaf = AsyncProvider { _ in await SlowLeaf.open() }
let slowServiceLeaf = AsyncService { _ in await SlowLeaf.open() }
let mainActorServiceLeaf = MainActorService { _ in Leaf() }

/// Where results go, so that the optimiser cannot drop a resolution.
nonisolated(unsafe) var sink: AnyObject?  // written by the one thread that runs

/// Keeps a result alive past the optimiser, at the same cost for every system.
@inline(never) func blackHole(_ object: AnyObject) { sink = object }

nonisolated(unsafe) var markerSink: (any TransientMarker)?  // as `sink`
/// ``blackHole(_:)`` for a transient declared as a protocol.
@inline(never) func blackHoleMarker(_ marker: any TransientMarker) { markerSink = marker }

// One resolution each, out of line, so that every system's loop is the same.
@inline(never) func hitHand(_ container: HandContainer) -> Leaf { container.leaf }
@inline(never) func hitForge(_ container: InstructionContainer) -> Leaf { container.leaf }
@inline(never) func hitForgeInject(_ container: ForgeContainer) -> Leaf { try! container.resolve() }
@inline(never) func hitSwiftPod(_ pod: SwiftPod) -> Leaf { pod.resolve(podLeaf) }
@inline(never) func hitSwiftPodLazy(_ pod: SwiftPod) -> Leaf { pod.resolve(LazyProviders.leaf) }
@inline(never) func hitFetcher(_ fetcher: Fetcher) -> Leaf { fetcher.fetch(.instructionLeaf) }
// The scaling curve's hits, from providers and services kept for the
// process.
func scaleHitSwiftPod(_ pod: SwiftPod, _ provider: Unmanaged<Provider<Leaf>>) -> Leaf {
  provider._withUnsafeGuaranteedRef { pod.resolve($0) }
}
func scaleHitFetcher(_ fetcher: Fetcher, _ service: Unmanaged<Service<Leaf>>) -> Leaf {
  service._withUnsafeGuaranteedRef { fetcher.fetch($0) }
}

// An override in force that returns an existing instance, as a test's mock
// does: issue 5's target is at most twice a plain cached hit.
let mockLeaf = Leaf()
@inline(never) func overrideForge(_ container: InstructionContainer) -> Leaf { container.leaf }
@inline(never) func overrideSwiftPod(_ pod: SwiftPod) -> Leaf { pod.resolve(podLeaf) }
@inline(never) func overrideFetcher(_ fetcher: Fetcher) -> Leaf { fetcher.fetch(.instructionLeaf) }

// A cached hit on a container whose graph was exported, which was
// validated, and which had an observer added and removed: recording and
// tracing available but off. Issue 12: the same count as a plain hit.
struct SilentObserver: ResolutionObserver { func resolution(_ event: ResolutionEvent) {} }
func switchedOff<Container: AnyObject>(
  _ container: Container,
  add: (Container) -> ObserverToken,
  remove: (Container, ObserverToken) -> Void,
  inspect: (Container) -> Void
) -> Container {
  remove(container, add(container))
  inspect(container)
  return container
}

// A cached hit of an async dependency, awaited from an async context; by
// hand, an async accessor of a stored `let`.
@inline(never) func asyncHitHand(_ container: HandContainer) async throws -> Leaf { container.leaf }
@inline(never) func asyncHitForge(_ container: InstructionContainer) async throws -> Leaf {
  try await container.asyncLeaf.value
}
@inline(never) func asyncHitForgeInject(_ container: ForgeContainer) async throws -> Leaf {
  try await container.resolveAsync()
}
@inline(never) func asyncHitSwiftPod(_ pod: SwiftPod) async throws -> Leaf { try await pod.resolve(podAsyncLeaf) }
@inline(never) func asyncHitFetcher(_ fetcher: Fetcher) async throws -> Leaf {
  try await fetcher.fetch(asyncServiceLeaf)
}

// The same hits from callers that run on their caller's executor
// (`nonisolated(nonsending)`, the default under Swift 6.2's approachable
// concurrency): the call needs no executor switch, so what is left is the
// await itself and the library's read.
@inline(never) nonisolated(nonsending) func asyncHitInPlaceHand(_ container: HandContainer) async throws -> Leaf {
  container.leaf
}
@inline(never) nonisolated(nonsending) func asyncHitInPlaceForge(_ container: InstructionContainer) async throws
  -> Leaf
{
  try await container.asyncLeaf.value
}
@inline(never) nonisolated(nonsending) func asyncHitInPlaceForgeInject(_ container: ForgeContainer) async throws
  -> Leaf
{
  try await container.resolveAsync()
}
@inline(never) nonisolated(nonsending) func asyncHitInPlaceSwiftPod(_ pod: SwiftPod) async throws -> Leaf {
  try await pod.resolve(podAsyncLeaf)
}
@inline(never) nonisolated(nonsending) func asyncHitInPlaceFetcher(_ fetcher: Fetcher) async throws -> Leaf {
  try await fetcher.fetch(asyncServiceLeaf)
}

// A kept main-actor dependency read on the main actor (this file's top-level
// code is main-actor isolated); by hand, a main-actor class's stored `let`.
@MainActor final class HandMainActor {
  let leaf = Leaf()
}
@MainActor @inline(never) func mainActorHitHand(_ container: HandMainActor) -> Leaf { container.leaf }
@MainActor @inline(never) func mainActorHitForge(_ container: InstructionContainer) -> Leaf {
  container.mainActorLeaf.value
}
@MainActor @inline(never) func mainActorHitForgeInject(_ container: ForgeContainer) -> Leaf {
  try! container.resolve()
}
@MainActor @inline(never) func mainActorHitSwiftPod(_ pod: SwiftPod) -> Leaf { pod.resolve(podMainActorLeaf) }
@MainActor @inline(never) func mainActorHitFetcher(_ fetcher: Fetcher) -> Leaf { fetcher.fetch(mainActorServiceLeaf) }

// First resolutions of an async singleton: a fresh container, and 64 child
// tasks that read it at once; one build. By hand, a task started by the
// first reader under a lock and awaited by all.
final class HandFirstBuild: @unchecked Sendable {
  // @unchecked: `task` is only touched with `mutex` held.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private var task: Task<Leaf, Never>?

  init() { pthread_mutex_init(mutex, nil) }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func value() async throws -> Leaf {
    pthread_mutex_lock(mutex)
    let task: Task<Leaf, Never>
    if let running = self.task {
      task = running
    } else {
      task = Task { Leaf() }
      self.task = task
    }
    pthread_mutex_unlock(mutex)
    return await task.value
  }
}

func firstResolutions<Subject: Sendable>(
  _ make: () -> Subject,
  read: @escaping @Sendable (Subject) async throws -> Leaf
) async {
  let subject = make()
  await withTaskGroup(of: Void.self) { group in
    for _ in 0..<64 { group.addTask { blackHole(try! await read(subject)) } }
  }
}

/// Starts the first build of a slow async singleton in a task of its own
/// and returns once its factory runs: an async singleton's first build
/// records what its factory resolves, which once sent every resolution of
/// the process to the general path until it ended.
func whileSlowLeafBuilds(_ build: @escaping @Sendable () async throws -> SlowLeaf) {
  Task.detached { _ = try await build() }
  SlowLeaf.started.wait()
}

/// Enters a `withOverrides` scope of a container of its own in a task of
/// its own, which stays inside it, and returns once it is there: a scope
/// raises a process-wide gate, and reads of the tasks that hold none once
/// all took the general path while it was up (a test beside another).
func whileAnotherTaskHoldsAScope() {
  let other = InstructionContainer()
  let entered = DispatchSemaphore(value: 0)
  Task.detached {
    await other.withOverrides {
      $0.override(\.leaf) { mockLeaf }
    } run: {
      entered.signal()
      while true { try? await Task.sleep(for: .seconds(3_600)) }
    }
  }
  entered.wait()
}

/// Runs `loop` in a task and blocks the main thread until it ends, without
/// spinning: the instructions counted are the loop's.
func runAsync(_ loop: @escaping @Sendable () async throws -> Void) {
  let done = DispatchSemaphore(value: 0)
  Task {
    do { try await loop() } catch { fail("\(error)") }
    done.signal()
  }
  done.wait()
}

@inline(never) func transientHand() -> TransientLeaf { TransientLeaf() }
@inline(never) func transientForge(_ container: InstructionContainer) -> TransientLeaf { container.transientLeaf }
@inline(never) func transientForgeInject(_ container: ForgeContainer) -> TransientLeaf { try! container.resolve() }
@inline(never) func transientSwiftPod(_ pod: SwiftPod) -> TransientLeaf { pod.resolve(podTransientLeaf) }

// Issue 5's chain: two transient builds around a cached hit. DependencyFetcher
// has no transient (a service is made once per fetcher).
@inline(never) func chainHand(_ container: HandContainer) -> ChainA { ChainA(b: ChainB(c: container.chainC)) }
@inline(never) func chainForge(_ container: InstructionContainer) -> ChainA { container.chainA }
@inline(never) func chainForgeInject(_ container: ForgeContainer) -> ChainA { try! container.resolve() }
@inline(never) func chainSwiftPod(_ pod: SwiftPod) -> ChainA { pod.resolve(podChainA) }
// A transient declared as a protocol; by hand, the initialiser's result
// converted to it.
/// A type per tag, for the set-up scenario.
final class Registered<Tag>: Sendable { init() {} }

/// The set-up scenario: a container, sixteen registrations, as an app
/// writes them, and one resolution.
@inline(never) func setUpForgeInject() -> AnyObject {
  let container = ForgeContainer()
  container.register(with: .transient) { _ in Registered<Int>() }
  container.register(with: .transient) { _ in Registered<Int8>() }
  container.register(with: .transient) { _ in Registered<Int16>() }
  container.register(with: .transient) { _ in Registered<Int32>() }
  container.register(with: .transient) { _ in Registered<Int64>() }
  container.register(with: .transient) { _ in Registered<UInt>() }
  container.register(with: .transient) { _ in Registered<UInt8>() }
  container.register(with: .transient) { _ in Registered<UInt16>() }
  container.register(with: .transient) { _ in Registered<UInt32>() }
  container.register(with: .transient) { _ in Registered<UInt64>() }
  container.register(with: .transient) { _ in Registered<Float>() }
  container.register(with: .transient) { _ in Registered<Double>() }
  container.register(with: .transient) { _ in Registered<String>() }
  container.register(with: .transient) { _ in Registered<Bool>() }
  container.register(with: .transient) { _ in Registered<Character>() }
  container.register(with: .transient) { _ in Registered<Substring>() }
  return try! container.resolve() as Registered<Int>
}

/// The same by hand: a container holding sixteen factories, and one call.
final class HandRegistry {
  var factories: [ObjectIdentifier: () -> AnyObject] = [:]
  func register<T: AnyObject>(_ factory: @escaping () -> T) { factories[ObjectIdentifier(T.self)] = factory }
  func resolve<T: AnyObject>(_ type: T.Type) -> T { factories[ObjectIdentifier(T.self)]!() as! T }
}

@inline(never) func setUpHand() -> AnyObject {
  let container = HandRegistry()
  container.register { Registered<Int>() }
  container.register { Registered<Int8>() }
  container.register { Registered<Int16>() }
  container.register { Registered<Int32>() }
  container.register { Registered<Int64>() }
  container.register { Registered<UInt>() }
  container.register { Registered<UInt8>() }
  container.register { Registered<UInt16>() }
  container.register { Registered<UInt32>() }
  container.register { Registered<UInt64>() }
  container.register { Registered<Float>() }
  container.register { Registered<Double>() }
  container.register { Registered<String>() }
  container.register { Registered<Bool>() }
  container.register { Registered<Character>() }
  container.register { Registered<Substring>() }
  return container.resolve(Registered<Int>.self)
}

@inline(never) func transientProtocolHand() -> any TransientMarker { TransientLeaf() }
@inline(never) func transientProtocolForge(_ container: InstructionContainer) -> any TransientMarker {
  container.transientMarker
}
@inline(never) func transientProtocolForgePreview(_ container: InstructionContainer) -> any TransientMarker {
  container.previewedMarker
}
@inline(never) func transientProtocolForgeInject(_ container: ForgeContainer) -> any TransientMarker {
  try! container.resolve()
}
@inline(never) func transientProtocolSwiftPod(_ pod: SwiftPod) -> any TransientMarker {
  pod.resolve(podTransientMarker)
}

func monotonicSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func fail(_ message: String) -> Never {
  print("forge-instructions: \(message)")
  exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]), count >= 0 else {
  fail(
    "usage: forge-instructions hit|hit-off|hit-after-gone-pod|hit-while-async-builds|hit-beside-scope|hit-in-other-scope|hit-in-async-caller|async-hit-in-caller|async-hit|async-hit-in-place|first-async|main-actor-hit|transient|transient-protocol|chain|setup|validate|override|scale|new-keys|twice-keys|reused-keys|kept-keys|reset-keys|reused-kept-keys SYSTEM N"
  )
}
let scenario = arguments[1]
let system = arguments[2]

let hand = HandContainer()
let container = InstructionContainer()
let forgeInject = ForgeContainer()
forgeInject.register(with: .singleton) { _ in Leaf() }
forgeInject.register(with: .transient) { _ in TransientLeaf() }
forgeInject.register(with: .transient) { _ -> any TransientMarker in TransientLeaf() }
let pod = SwiftPod()
let fetcher = Fetcher.createDefault()

switch (scenario, system) {
case ("hit", "hand"): for _ in 0..<count { blackHole(hitHand(hand)) }
case ("hit", "forge"): for _ in 0..<count { blackHole(hitForge(container)) }
case ("hit", "forgeinject"): for _ in 0..<count { blackHole(hitForgeInject(forgeInject)) }
case ("hit", "swiftpod"): for _ in 0..<count { blackHole(hitSwiftPod(pod)) }
case ("hit", "swiftpod-static"): for _ in 0..<count { blackHole(hitSwiftPodLazy(pod)) }
case ("hit", "fetcher"): for _ in 0..<count { blackHole(hitFetcher(fetcher)) }
case ("hit-off", "forge"):
  _ = container.leaf
  let off = switchedOff(
    container,
    add: { $0.addObserver(SilentObserver()) },
    remove: { $0.removeObserver($1) },
    inspect: {
      _ = $0.dependencyGraph()
      _ = $0.validate(\.leaf)
    }
  )
  for _ in 0..<count { blackHole(hitForge(off)) }
case ("hit-off", "forgeinject"):
  _ = try! forgeInject.resolve() as Leaf
  let off = switchedOff(
    forgeInject,
    add: { $0.addObserver(SilentObserver()) },
    remove: { $0.removeObserver($1) },
    inspect: {
      _ = $0.dependencyGraph()
      _ = $0.validate()
    }
  )
  for _ in 0..<count { blackHole(hitForgeInject(off)) }
case ("hit-off", "swiftpod"):
  _ = pod.resolve(podLeaf)
  let off = switchedOff(
    pod,
    add: { $0.addObserver(SilentObserver()) },
    remove: { $0.removeObserver($1) },
    inspect: {
      _ = $0.dependencyGraph()
      _ = $0.validate(podLeaf)
    }
  )
  for _ in 0..<count { blackHole(hitSwiftPod(off)) }
case ("hit-off", "fetcher"):
  _ = fetcher.fetch(.instructionLeaf)
  let off = switchedOff(
    fetcher,
    add: { $0.addObserver(SilentObserver()) },
    remove: { $0.removeObserver($1) },
    inspect: {
      _ = $0.dependencyGraph()
      _ = $0.validate(Service.instructionLeaf)
    }
  )
  for _ in 0..<count { blackHole(hitFetcher(off)) }
case ("hit-after-gone-pod", "swiftpod"):
  // A pod that read the provider first and is gone (a test's, a tool's)
  // leaves the provider's slot cache to the next pod.
  do {
    let gone = SwiftPod()
    for _ in 0..<2 { _ = gone.resolve(podLeaf) }
  }
  _ = pod.resolve(podLeaf)
  for _ in 0..<count { blackHole(hitSwiftPod(pod)) }
case ("hit-after-gone-pod", "fetcher"):
  do {
    let gone = Fetcher.createDefault()
    for _ in 0..<2 { _ = gone.fetch(.instructionLeaf) }
  }
  _ = fetcher.fetch(.instructionLeaf)
  for _ in 0..<count { blackHole(hitFetcher(fetcher)) }
case ("override", "hand"): for _ in 0..<count { blackHole(hitHand(hand)) }
case ("override", "forge"):
  let overridden = InstructionContainer()
  overridden.override(\.leaf) { mockLeaf }
  for _ in 0..<count { blackHole(overrideForge(overridden)) }
case ("override", "forge-scope"):
  container.withOverrides {
    $0.override(\.leaf) { mockLeaf }
  } run: {
    for _ in 0..<count { blackHole(overrideForge(container)) }
  }
case ("override", "forge-other"):
  let overridden = InstructionContainer()
  _ = overridden.leaf
  overridden.override(\.transientLeaf) { TransientLeaf() }
  _ = overridden.transientLeaf
  for _ in 0..<count { blackHole(overrideForge(overridden)) }
case ("override", "forge-parked"):
  // The other override is never read: its key read stays parked, and the
  // container with it.
  let overridden = InstructionContainer()
  _ = overridden.leaf
  overridden.override(\.transientLeaf) { TransientLeaf() }
  for _ in 0..<count { blackHole(overrideForge(overridden)) }
case ("override", "forge-scope-other"):
  _ = container.leaf
  container.withOverrides {
    $0.override(\.transientLeaf) { TransientLeaf() }
  } run: {
    _ = container.transientLeaf
    for _ in 0..<count { blackHole(overrideForge(container)) }
  }
case ("override", "swiftpod"):
  let overridden = SwiftPod()
  overridden.overrideProvider(podLeaf) { _ in mockLeaf }
  for _ in 0..<count { blackHole(overrideSwiftPod(overridden)) }
case ("override", "fetcher"):
  let overridden = Fetcher.create().addOverride(for: .instructionLeaf, instance: mockLeaf).done()
  for _ in 0..<count { blackHole(overrideFetcher(overridden)) }
case ("async-hit", "hand"):
  runAsync { [hand] in for _ in 0..<count { blackHole(try await asyncHitHand(hand)) } }
case ("async-hit", "forge"):
  runAsync { [container] in for _ in 0..<count { blackHole(try await asyncHitForge(container)) } }
case ("async-hit", "forgeinject"):
  forgeInject.register(with: .singleton) { _ async in Leaf() }
  runAsync { [forgeInject] in for _ in 0..<count { blackHole(try await asyncHitForgeInject(forgeInject)) } }
// Issue 13's target: a cached async hit awaited in the caller's own async
// function (here the loop), against the synchronous hit read in that same
// loop (`hit-in-async-caller`). The entry points are inlinable, so what the
// two measure is the library's read, without a call of an async function
// of the benchmark's own (which `async-hit` adds). By hand, the same
// stored `let` in both.
case ("async-hit-in-caller", "hand"), ("hit-in-async-caller", "hand"):
  runAsync { [hand] in for _ in 0..<count { blackHole(hand.leaf) } }
case ("async-hit-in-caller", "forge"):
  runAsync { [container] in for _ in 0..<count { blackHole(try await container.asyncLeaf.value) } }
case ("async-hit-in-caller", "forge-capturing"):
  runAsync { [container] in for _ in 0..<count { blackHole(try await container.capturingAsyncLeaf.value) } }
case ("async-hit-in-caller", "forgeinject"):
  forgeInject.register(with: .singleton) { _ async in Leaf() }
  runAsync { [forgeInject] in for _ in 0..<count { blackHole(try await forgeInject.resolveAsync() as Leaf) } }
case ("async-hit-in-caller", "swiftpod"):
  runAsync { [pod] in for _ in 0..<count { blackHole(try await pod.resolve(podAsyncLeaf)) } }
case ("async-hit-in-caller", "fetcher"):
  runAsync { [fetcher] in for _ in 0..<count { blackHole(try await fetcher.fetch(asyncServiceLeaf)) } }
case ("hit-in-async-caller", "forge"):
  runAsync { [container] in for _ in 0..<count { blackHole(container.leaf) } }
case ("hit-in-async-caller", "forge-capturing"):
  runAsync { [container] in for _ in 0..<count { blackHole(container.capturingLeaf) } }
case ("hit-in-async-caller", "forgeinject"):
  runAsync { [forgeInject] in for _ in 0..<count { blackHole(try forgeInject.resolve() as Leaf) } }
case ("hit-in-async-caller", "swiftpod"):
  runAsync { [pod] in for _ in 0..<count { blackHole(pod.resolve(podLeaf)) } }
case ("hit-in-async-caller", "fetcher"):
  runAsync { [fetcher] in for _ in 0..<count { blackHole(fetcher.fetch(.instructionLeaf)) } }
case ("async-hit-in-place", "hand"):
  runAsync { [hand] in for _ in 0..<count { blackHole(try await asyncHitInPlaceHand(hand)) } }
case ("async-hit-in-place", "forge"):
  runAsync { [container] in for _ in 0..<count { blackHole(try await asyncHitInPlaceForge(container)) } }
case ("async-hit-in-place", "forgeinject"):
  forgeInject.register(with: .singleton) { _ async in Leaf() }
  runAsync { [forgeInject] in for _ in 0..<count { blackHole(try await asyncHitInPlaceForgeInject(forgeInject)) } }
case ("async-hit-in-place", "swiftpod"):
  runAsync { [pod] in for _ in 0..<count { blackHole(try await asyncHitInPlaceSwiftPod(pod)) } }
case ("async-hit-in-place", "fetcher"):
  runAsync { [fetcher] in for _ in 0..<count { blackHole(try await asyncHitInPlaceFetcher(fetcher)) } }
case ("first-async", "hand"):
  runAsync {
    for _ in 0..<count {
      await firstResolutions {
        HandFirstBuild()
      } read: {
        try await $0.value()
      }
    }
  }
case ("first-async", "forge"):
  // Its factory does not await (the synchronous-factory `provide`): the
  // form whose waiters once each wrapped the factory in a new closure.
  runAsync {
    for _ in 0..<count {
      await firstResolutions {
        InstructionContainer()
      } read: {
        try await $0.asyncLeaf.value
      }
    }
  }
case ("first-async", "forgeinject"):
  runAsync {
    for _ in 0..<count {
      await firstResolutions {
        let container = ForgeContainer()
        container.register(with: .singleton) { _ async in Leaf() }
        return container
      } read: {
        try await $0.resolveAsync(Leaf.self)
      }
    }
  }
case ("first-async", "swiftpod"):
  runAsync {
    for _ in 0..<count {
      await firstResolutions {
        SwiftPod()
      } read: {
        try await $0.resolve(podAsyncLeaf)
      }
    }
  }
case ("first-async", "fetcher"):
  runAsync {
    for _ in 0..<count {
      await firstResolutions {
        Fetcher.createDefault()
      } read: {
        try await $0.fetch(asyncServiceLeaf)
      }
    }
  }
case ("async-hit", "swiftpod"):
  runAsync { [pod] in for _ in 0..<count { blackHole(try await asyncHitSwiftPod(pod)) } }
case ("async-hit", "fetcher"):
  runAsync { [fetcher] in for _ in 0..<count { blackHole(try await asyncHitFetcher(fetcher)) } }
case ("main-actor-hit", "hand"):
  let hand = HandMainActor()
  for _ in 0..<count { blackHole(mainActorHitHand(hand)) }
case ("main-actor-hit", "forge"): for _ in 0..<count { blackHole(mainActorHitForge(container)) }
case ("main-actor-hit", "forgeinject"):
  // A container of its own: the shared one has Leaf's synchronous builder.
  let onMainActor = ForgeContainer()
  onMainActor.register(with: .singleton, onMainActor: { _ in Leaf() })
  for _ in 0..<count { blackHole(mainActorHitForgeInject(onMainActor)) }
case ("main-actor-hit", "swiftpod"): for _ in 0..<count { blackHole(mainActorHitSwiftPod(pod)) }
case ("main-actor-hit", "fetcher"): for _ in 0..<count { blackHole(mainActorHitFetcher(fetcher)) }
case ("hit-while-async-builds", "hand"):
  runAsync { [hand] in for _ in 0..<count { blackHole(hitHand(hand)) } }
case ("hit-while-async-builds", "forge"):
  whileSlowLeafBuilds { [container] in try await container.slowLeaf.value }
  runAsync { [container] in for _ in 0..<count { blackHole(hitForge(container)) } }
case ("hit-while-async-builds", "forgeinject"):
  forgeInject.register(with: .singleton) { _ async in await SlowLeaf.open() }
  whileSlowLeafBuilds { [forgeInject] in try await forgeInject.resolveAsync(SlowLeaf.self) }
  runAsync { [forgeInject] in for _ in 0..<count { blackHole(hitForgeInject(forgeInject)) } }
case ("hit-while-async-builds", "swiftpod"):
  whileSlowLeafBuilds { [pod] in try await pod.resolve(podSlowLeaf) }
  runAsync { [pod] in for _ in 0..<count { blackHole(hitSwiftPod(pod)) } }
case ("hit-while-async-builds", "fetcher"):
  whileSlowLeafBuilds { [fetcher] in try await fetcher.fetch(slowServiceLeaf) }
  runAsync { [fetcher] in for _ in 0..<count { blackHole(hitFetcher(fetcher)) } }
case ("hit-beside-scope", "hand"):
  runAsync { [hand] in for _ in 0..<count { blackHole(hitHand(hand)) } }
case ("hit-beside-scope", "forge"):
  whileAnotherTaskHoldsAScope()
  runAsync { [container] in for _ in 0..<count { blackHole(hitForge(container)) } }
case ("hit-beside-scope", "forgeinject"):
  whileAnotherTaskHoldsAScope()
  runAsync { [forgeInject] in for _ in 0..<count { blackHole(hitForgeInject(forgeInject)) } }
case ("hit-beside-scope", "swiftpod"):
  whileAnotherTaskHoldsAScope()
  runAsync { [pod] in for _ in 0..<count { blackHole(hitSwiftPod(pod)) } }
case ("hit-beside-scope", "fetcher"):
  whileAnotherTaskHoldsAScope()
  runAsync { [fetcher] in for _ in 0..<count { blackHole(hitFetcher(fetcher)) } }
case ("hit-in-other-scope", "hand"): for _ in 0..<count { blackHole(hitHand(hand)) }
case ("hit-in-other-scope", let system):
  // In a `withOverrides` scope of another container: the scope applies to
  // nothing read, but the read must ask.
  let other = InstructionContainer()
  other.withOverrides {
    $0.override(\.leaf) { mockLeaf }
  } run: {
    switch system {
    case "forge": for _ in 0..<count { blackHole(hitForge(container)) }
    case "forgeinject": for _ in 0..<count { blackHole(hitForgeInject(forgeInject)) }
    case "swiftpod": for _ in 0..<count { blackHole(hitSwiftPod(pod)) }
    default: for _ in 0..<count { blackHole(hitFetcher(fetcher)) }
    }
  }
case ("new-keys", "forge"):
  // `count` distinct keys, each resolved once: what a slot costs, measured
  // with valgrind's dhat (Benchmarks/README.md).
  for id in 0..<count { blackHole(container.perArgument(id)) }
case ("twice-keys", "forge"):
  // `count` distinct transient keys, each resolved twice: what a key asked
  // for again keeps, measured with valgrind's dhat (Benchmarks/README.md).
  for id in 0..<count {
    blackHole(container.perArgument(id))
    blackHole(container.perArgument(id))
  }
case ("reused-keys", "forge"):
  // 64 transient keys of one declaration, resolved in turn: a build of a
  // key per argument asked for again and again (the key's text made each
  // time, as the caller's interpolation makes it).
  for id in 0..<count { blackHole(container.perArgument(id & 63)) }
case ("kept-keys", "forge"):
  // `count` distinct kept keys, each resolved once: what a kept slot and
  // its share of the table cost, measured with valgrind's dhat
  // (Benchmarks/README.md).
  for id in 0..<count { blackHole(container.keptPerArgument(id)) }
case ("reset-keys", "forge"):
  // `count` distinct kept keys, each resolved once, then a reset: what a
  // kept key per argument leaves once it is emptied, measured with
  // valgrind's dhat (Benchmarks/README.md).
  for id in 0..<count { blackHole(container.keptPerArgument(id)) }
  container.resetCached()
case ("reused-kept-keys", "forge"):
  // 64 kept keys of one declaration, read in turn once built: a hit of a
  // kept key per argument (the key's text made each time).
  for id in 0..<64 { blackHole(container.keptPerArgument(id)) }
  for id in 0..<count { blackHole(container.keptPerArgument(id & 63)) }
case ("transient", "hand"): for _ in 0..<count { blackHole(transientHand()) }
case ("transient", "forge"): for _ in 0..<count { blackHole(transientForge(container)) }
case ("transient", "forgeinject"): for _ in 0..<count { blackHole(transientForgeInject(forgeInject)) }
case ("transient", "swiftpod"): for _ in 0..<count { blackHole(transientSwiftPod(pod)) }
case ("chain", "hand"): for _ in 0..<count { blackHole(chainHand(hand)) }
case ("chain", "forge"): for _ in 0..<count { blackHole(chainForge(container)) }
case ("chain", "forgeinject"):
  // A container of its own: the other scenarios' table stays as it was.
  let chained = ForgeContainer()
  chained.register(with: .singleton) { _ in ChainC() }
  chained.register(with: .transient) { container in ChainB(c: try container.resolve()) }
  chained.register(with: .transient) { container in ChainA(b: try container.resolve()) }
  for _ in 0..<count { blackHole(chainForgeInject(chained)) }
case ("chain", "swiftpod"): for _ in 0..<count { blackHole(chainSwiftPod(pod)) }
// Issue 12: `validate()` of one root, as benchmark scenario 11 runs it by
// the wall clock. ForgeInject checks its three registrations on the
// calling thread; the others check the chain A(B(C)) (DependencyFetcher a
// leaf service) on a thread of the validation's own, which callgrind counts
// with the caller's. By hand: the chain built.
case ("validate", "hand"): for _ in 0..<count { blackHole(chainHand(hand)) }
case ("validate", "forge"): for _ in 0..<count { precondition(container.validate(\.chainA).isValid) }
case ("validate", "forgeinject"):
  let chained = ForgeContainer()
  chained.register(with: .singleton) { _ in ChainC() }
  chained.register(with: .transient) { container in ChainB(c: try container.resolve()) }
  chained.register(with: .transient) { container in ChainA(b: try container.resolve()) }
  for _ in 0..<count { precondition(chained.validate().isValid) }
case ("validate", "swiftpod"): for _ in 0..<count { precondition(pod.validate(podChainA).isValid) }
case ("validate", "fetcher"):
  for _ in 0..<count { precondition(fetcher.validate(Service.instructionLeaf).isValid) }
case ("transient-protocol", "hand"): for _ in 0..<count { blackHoleMarker(transientProtocolHand()) }
case ("transient-protocol", "forge"): for _ in 0..<count { blackHoleMarker(transientProtocolForge(container)) }
case ("transient-protocol", "forge-preview"):
  for _ in 0..<count { blackHoleMarker(transientProtocolForgePreview(container)) }
case ("transient-protocol", "forgeinject"):
  for _ in 0..<count { blackHoleMarker(transientProtocolForgeInject(forgeInject)) }
case ("transient-protocol", "swiftpod"): for _ in 0..<count { blackHoleMarker(transientProtocolSwiftPod(pod)) }
case ("setup", "hand"): for _ in 0..<count { blackHole(setUpHand()) }
case ("setup", "forgeinject"): for _ in 0..<count { blackHole(setUpForgeInject()) }
case ("scale", _):
  // `count` distinct kept dependencies and ten others, each resolved once,
  // then hit round-robin; prints nanoseconds per hit over ten and over
  // `count`, measured in alternating passes of one process (best of seven
  // each), so that a slow process slows both alike.
  func hits(_ size: Int) -> (Int) -> Leaf {
    switch system {
    case "hand":
      let leaves = (0..<size).map { _ in Leaf() }
      return { leaves[$0] }
    case "forge":
      let offset = size == 10 ? 19_990 : 0
      return { container.scaled($0 + offset) }
    // Providers and services are read from the array unretained, as an
    // app reads its `static let` ones: an array element passed on is
    // retained and released around the call (two atomic operations, about
    // 10 ns here), which Forge's keys (small strings) and the hit scenario's
    // globals do not pay.
    case "swiftpod":
      let providers = (0..<size).map { _ in Unmanaged.passRetained(Provider { _ in Leaf() }) }  // for the process
      return { scaleHitSwiftPod(pod, providers[$0]) }
    case "fetcher":
      let services = (0..<size).map { _ in Unmanaged.passRetained(Service { Leaf() }) }  // for the process
      return { scaleHitFetcher(fetcher, services[$0]) }
    default: fail("no scale scenario for \(system)")
    }
  }
  func passTime(_ hit: (Int) -> Leaf, size: Int) -> Double {
    let rounds = max(1, 1_000_000 / size)
    let start = monotonicSeconds()
    for _ in 0..<rounds {
      for index in 0..<size { blackHole(hit(index)) }
    }
    return (monotonicSeconds() - start) / Double(rounds * size) * 1e9
  }
  let small = hits(10)
  let large = hits(count)
  for index in 0..<10 { blackHole(small(index)) }
  for index in 0..<count { blackHole(large(index)) }
  var bestSmall = Double.infinity
  var bestLarge = Double.infinity
  for _ in 0..<7 {
    bestSmall = min(bestSmall, passTime(small, size: 10))
    bestLarge = min(bestLarge, passTime(large, size: count))
  }
  print((bestSmall * 10).rounded() / 10, (bestLarge * 10).rounded() / 10)
default:
  fail("unknown scenario \(scenario) for \(system)")
}
