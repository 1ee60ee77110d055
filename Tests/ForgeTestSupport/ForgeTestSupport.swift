import ForgeCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

// Fixtures every test target uses: a class compared by identity, a counter
// that threads share, and real threads, started and joined.

/// A class whose instances tests compare by identity.
package final class Thing: Sendable {
  package let label: String
  package init(_ label: String = "thing") { self.label = label }
}

/// Whether freed memory is handed out again soon, so that a new object
/// may take a gone one's address: not under AddressSanitizer, which keeps
/// freed memory aside to catch uses after free.
package let allocatorReusesAddresses: Bool = {
  #if canImport(Glibc) || canImport(Musl)
    return dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") == nil
  #else
    return dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__asan_init") == nil  // RTLD_DEFAULT
  #endif
}()

/// Whether the process runs under ThreadSanitizer, which slows every
/// atomic and every switch between threads many times over: tests whose
/// rounds make threads meet (a barrier per round) run fewer rounds there,
/// so that they stay inside their time limits on two cores.
package let runsUnderThreadSanitizer: Bool = {
  #if canImport(Glibc) || canImport(Musl)
    return dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
  #else
    return dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil  // RTLD_DEFAULT
  #endif
}()

/// An instance that counts itself in `alive` while it lives, for tests
/// that check a container let go of what it built.
package final class Tracked: Sendable {
  package let number: Int
  private let alive: Counter
  package init(_ number: Int, alive: Counter = Counter()) {
    self.number = number
    self.alive = alive
    alive.increment()
  }
  deinit { alive.decrement() }
}

/// Counts runs (of a factory, say) across threads.
package final class Counter: Sendable {
  private let value = LockedValue(0)
  package init() {}
  package func increment() { value.withValue { $0 += 1 } }
  package func decrement() { value.withValue { $0 -= 1 } }
  /// Increments, and returns the count this increment made.
  package func incremented() -> Int {
    value.withValue {
      $0 += 1
      return $0
    }
  }
  package var count: Int { value.current }
}

/// The distinct objects seen across threads. Over a pthread mutex, which
/// ThreadSanitizer understands: `Synchronization.Mutex` waits on a futex
/// that it cannot see, and then reports the guarded value as raced.
package final class IdentitySet: Sendable {
  private let ids = LockedValue<Set<ObjectIdentifier>>([])
  package init() {}
  package func insert(_ object: AnyObject) { ids.withValue { _ = $0.insert(ObjectIdentifier(object)) } }
  package var count: Int { ids.current.count }
}

/// A flag one thread raises and others wait for, over a pthread condition.
package final class Signal: Sendable {
  private let raised = LockedValue(false)
  package init() {}
  package func raise() { raised.current = true }
  /// Waits (polling every millisecond) until raised; false after `seconds`.
  @discardableResult
  package func wait(seconds: Double = 30) -> Bool {
    eventually(within: seconds) { raised.current }
  }
  package var isRaised: Bool { raised.current }
}

/// Polls `condition` every millisecond until it holds, for at most
/// `seconds`; whether it came to hold.
///
/// ```swift
/// #expect(eventually { threads.threadsWaiting == 1 })
/// ```
package func eventually(within seconds: Double = 30, _ condition: () -> Bool) -> Bool {
  for _ in 0..<Int(seconds * 1000) {
    if condition() { return true }
    usleep(1_000)
  }
  return condition()
}

/// A real operating-system thread running `body`; ``join(within:)``
/// returns once the thread has ended, its thread-local destructors
/// included.
package final class RealThread: @unchecked Sendable {
  // @unchecked: `thread` is written once, before any other thread can see
  // the object, and read only by `join`.
  #if canImport(Darwin)
    private var thread: pthread_t?
  #else
    private var thread = pthread_t()
  #endif
  /// Raised when `body` returns.
  private let ended = Signal()

  /// Starts `body` on a new thread.
  package init(_ body: @escaping @Sendable () -> Void) {
    let ended = ended
    let box = Unmanaged.passRetained(
      Body {
        body()
        ended.raise()
      }
    ).toOpaque()
    #if canImport(Darwin)
      let status = pthread_create(
        &thread, nil,
        { raw in
          Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
          return nil
        }, box)
    #else
      let status = pthread_create(
        &thread, nil,
        { raw in
          Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
          return nil
        }, box)
    #endif
    precondition(status == 0, "pthread_create failed: \(status)")
  }

  /// Waits for the thread to end. A thread still running after `seconds`
  /// (longer than any suite's time limit) is taken for a deadlock: the test
  /// process stops with a message instead of hanging the run, which a
  /// time limit cannot end while a thread is blocked here.
  package func join(within seconds: Double = 660) {
    if !ended.wait(seconds: seconds) {
      fatalError("a test thread was still running after \(Int(seconds)) s: a deadlock?")
    }
    #if canImport(Darwin)
      pthread_join(thread!, nil)
    #else
      pthread_join(thread, nil)
    #endif
  }

  private final class Body {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }
}

/// Runs `body` on `threads` real threads, released together, and returns
/// when all have ended; a thread still running after `seconds` stops the
/// process with a message (see ``RealThread/join(within:)``): the time
/// limit of a test that no trait can limit (an XCTest case on Linux).
package func onThreads(_ threads: Int, within seconds: Double = 660, _ body: @escaping @Sendable (Int) -> Void) {
  let start = Signal()
  let started = (0..<threads).map { index in
    RealThread {
      start.wait()
      body(index)
    }
  }
  start.raise()
  for thread in started { thread.join(within: seconds) }
}

/// A real thread that clears what a test keeps hitting, `times` times,
/// waiting after each clear until the test's hits have built it again
/// (`builds`, the count of builds, has grown); then ``done`` is raised. So
/// every clear lands between hits, and the test's hits run `times + 1`
/// builds in all. A clear waits at most 10 s for its rebuild: the test
/// then finds too few builds instead of hanging.
///
/// ```swift
/// let clears = RepeatedClears(50, rebuiltAs: builds) { pod.clearCachedInstances(forScope: scope) }
/// repeat { _ = pod.resolve(provider); await Task.yield() } while !clears.done.isRaised
/// clears.join()
/// ```
package final class RepeatedClears: Sendable {
  package let done: Signal
  private let thread: RealThread

  package init(_ times: Int, rebuiltAs builds: Counter, _ clear: @escaping @Sendable () -> Void) {
    let done = Signal()
    self.done = done
    thread = RealThread {
      for _ in 0..<times {
        let before = builds.count
        clear()
        var waited = 0
        while builds.count == before, waited < 200_000 {
          usleep(50)
          waited += 1
        }
      }
      done.raise()
    }
  }

  /// Waits for the thread to end.
  package func join() { thread.join() }
}

/// Holds each arriving thread until `count` threads have arrived (or
/// `seconds` passed): how a test puts several threads inside their own
/// builds before any of them goes on.
package final class Barrier: Sendable {
  private let arrived = LockedValue(0)
  private let count: Int
  package init(_ count: Int) { self.count = count }
  package func arrive(seconds: Double = 10) {
    arrived.withValue { $0 += 1 }
    var waited = 0.0
    while arrived.current < count, waited < seconds {
      usleep(500)
      waited += 0.0005
    }
  }
}

/// In an exit test: ends the process with status 3 and "hang" on standard
/// error if it is still running after `seconds`, so a deadlock fails the
/// test with a message instead of outliving it.
package func exitIfStillRunning(after seconds: UInt32) -> Never {
  sleep(seconds)
  let message = "hang: still running after \(seconds) s\n"
  _ = message.withCString { write(2, $0, strlen($0)) }
  exit(3)
}

/// An exit test's standard error up to the backtrace the Swift runtime
/// prints after a crash when `SWIFT_BACKTRACE` turns it on (`enable=yes`):
/// its frames name our functions and files, so a check that some text is
/// absent reads this part only.
///
/// ```swift
/// #expect(!beforeBacktrace(stderr).contains("hang"))
/// ```
package func beforeBacktrace(_ stderr: String) -> String {
  // The backtrace starts with a line such as "*** Signal 4: Backtracing …".
  let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
  return lines.prefix { !$0.hasPrefix("*** ") }.joined(separator: "\n")
}

/// A value behind a pthread mutex, for tests whose threads share it:
/// ThreadSanitizer sees this lock, not `Synchronization.Mutex`'s futex.
package final class Guarded<Value>: @unchecked Sendable {
  // @unchecked: `value` is only touched inside its lock.
  private let value: LockedValue<Value>
  package init(_ initial: Value) { value = LockedValue(initial) }
  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R { try value.withValue(body) }
}

/// An instance that notes its name in a shared log when it is shut down,
/// holding the parts it was built from; throws when told to.
package final class StoppablePart: GracefulShutdown {
  package struct Failed: Error {}
  package let name: String
  package let parts: [StoppablePart]
  private let log: Guarded<[String]>
  private let fails: Bool

  package init(_ name: String, log: Guarded<[String]>, fails: Bool = false, _ parts: [StoppablePart] = []) {
    self.name = name
    self.log = log
    self.fails = fails
    self.parts = parts
  }

  package func shutdown() async throws {
    log.withLock { $0.append(name) }
    if fails { throw Failed() }
  }
}

extension ResolutionEvent.Kind {
  /// The kind's name, without a build's duration or a failure's text, for
  /// comparing event sequences.
  package var label: String {
    switch self {
    case .requested: "requested"
    case .cacheHit: "cacheHit"
    case .built: "built"
    case .overrideUsed: "overrideUsed"
    case .previewUsed: "previewUsed"
    case .failed: "failed"
    }
  }
}

/// A main-actor view model that stops a part when its container shuts down.
@MainActor package final class MainActorStoppable: GracefulShutdown {
  package let part: StoppablePart
  package init(_ part: StoppablePart) {
    MainActor.preconditionIsolated()
    self.part = part
  }
  package nonisolated func shutdown() async throws { try await part.shutdown() }
}

/// Ends an exit test's child process at once, successfully when `passed`,
/// without running the exit handlers.
///
/// A validation whose run failed keeps its parked thread, and the partial
/// build that thread holds, for the life of the process. Under
/// LeakSanitizer (CI's ASan step) the check at exit counts the side tables
/// of weak references to what that thread holds as leaked, though all of
/// it is still reachable: such a test runs in a process of its own, which
/// ends here, so that the rest of the suite keeps the check.
///
/// ```swift
/// await #expect(processExitsWith: .success) {
///   let report = await pod.validateAsync(looping)
///   endTestProcess(passed: report.problems.map(\.id) == [.cycle])
/// }
/// ```
package func endTestProcess(passed: Bool) -> Never {
  fflush(nil)  // every output stream: what the test printed reaches the parent
  _exit(passed ? 0 : 1)
}
