import Benchmark
import DependencyFetcher
import Forge
import ForgeInject
import Foundation
import SwiftPod

// Issue 13's async scenarios: an async dependency's cached hit, and 64 tasks
// resolving one async singleton for the first time, against hand-written
// async code (a stored `let` behind an async accessor; one `Task` that every
// caller awaits).

/// Hand-written: what a cached async dependency is without a container.
final class HandAsync: Sendable {
  let leaf = Leaf()
  @inline(never) func cachedLeaf() async -> Leaf { leaf }
}

/// Hand-written single flight: the first caller starts one task, which
/// every caller awaits.
final class HandSingleFlight: @unchecked Sendable {
  // @unchecked: `build` is only touched while `lock` is held.
  private let lock = NSLock()
  private var build: Task<Leaf, Never>?

  func value() async -> Leaf {
    lock.lock()
    let task: Task<Leaf, Never>
    if let build {
      task = build
    } else {
      task = Task { await AsyncOpening.open() }
      build = task
    }
    lock.unlock()
    return await task.value
  }
}

/// An async factory that suspends once, as opening a store would.
enum AsyncOpening {
  static func open() async -> Leaf {
    await Task.yield()
    return Leaf()
  }
}

final class AsyncBenchContainer: Container, @unchecked Sendable {
  var leaf: AsyncDependency<Leaf> { provide(.singleton) { await AsyncOpening.open() } }
}

let podAsyncLeaf = AsyncProvider { _ in await AsyncOpening.open() }
let asyncServiceLeaf = AsyncService { _ in await AsyncOpening.open() }

func makeAsyncInjectContainer() -> ForgeContainer {
  let container = ForgeContainer()
  container.register(with: .singleton) { _ async in await AsyncOpening.open() }
  return container
}

/// Runs `resolve` from `tasks` child tasks at once; returns when the last
/// one has its instance.
func firstResolutions(_ tasks: Int, _ resolve: @escaping @Sendable () async throws -> Leaf) async {
  await withTaskGroup(of: Void.self) { group in
    for _ in 0..<tasks {
      group.addTask { blackHole(try! await resolve()) }
    }
  }
}

// Issue 13's main-actor scenario: a kept main-actor dependency read on the
// main actor, against a main-actor class's stored `let`.

/// Hand-written: what a kept main-actor dependency is without a container.
@MainActor final class HandMainActor {
  let leaf: Leaf
  nonisolated init() { leaf = Leaf() }
}

final class MainActorBenchContainer: Container, @unchecked Sendable {
  var leaf: MainActorDependency<Leaf> { provide(.singleton) { @MainActor in Leaf() } }
}

let podMainActorLeaf = MainActorProvider { _ in Leaf() }
let mainActorServiceLeaf = MainActorService { _ in Leaf() }

func makeMainActorInjectContainer() -> ForgeContainer {
  let container = ForgeContainer()
  container.register(with: .singleton, onMainActor: { _ in Leaf() })
  return container
}
