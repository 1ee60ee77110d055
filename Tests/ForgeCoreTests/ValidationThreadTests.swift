import ForgeCore
import ForgeTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A number for the calling thread, given at its first call and never
/// given to another thread (a thread's `pthread_self()` may be reused once
/// it has ended, which would make threads that ran one after another look
/// like one).
private func threadNumber() -> UInt {
  if let number = pthread_getspecific(ThreadNumbers.key) { return UInt(bitPattern: number) }
  let number = ThreadNumbers.next.withValue { next in
    defer { next += 1 }
    return next
  }
  pthread_setspecific(ThreadNumbers.key, UnsafeRawPointer(bitPattern: number))
  return number
}

private enum ThreadNumbers {
  static let key: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0)
    return key
  }()
  static let next = LockedValue<UInt>(1)
}

private struct RootFailed: Error {}

@Suite("Validation's threads", .timeLimit(.minutes(1)))
struct ValidationThreadTests {
  /// Roots that note the thread each one ran on; `failing` fails the way a
  /// dialect that cannot throw fails (its thread is parked for good).
  func roots(_ count: Int, failing: Set<Int> = [], noting threads: LockedValue<[Int: UInt]>) -> [Validation.Root] {
    (0..<count).map { index in
      Validation.Root(name: "root \(index)") {
        threads.withValue { $0[index] = threadNumber() }
        if failing.contains(index) {
          ValidationSession.failIfValidating(RootFailed())
          Issue.record("a failing root's thread went on after its failure")
        }
      }
    }
  }

  @Test("a dialect that cannot throw runs sound roots one after another on one thread of their own")
  func soundRootsShareAThread() {
    let threads = LockedValue<[Int: UInt]>([:])
    let report = Validation.run(roots(20, noting: threads), throwing: false)
    #expect(report.isValid)
    let ran = threads.withValue { $0 }
    #expect(ran.count == 20)
    #expect(Set(ran.values).count == 1)
    #expect(!ran.values.contains(threadNumber()))
  }

  @Test("after a root that fails (its thread parked), the next roots run on a new thread; every failure is reported")
  func failureStartsANewThread() {
    let threads = LockedValue<[Int: UInt]>([:])
    let report = Validation.run(roots(6, failing: [1, 4], noting: threads), throwing: false)
    #expect(report.problems.count == 2)
    #expect(report.problems.map(\.dependency) == ["root 1", "root 4"])
    let ran = threads.withValue { $0 }
    #expect(ran.count == 6)
    // Roots 0 and 1 on the first thread (parked by 1), 2 to 4 on the
    // second (parked by 4), 5 on a third.
    #expect(ran[0] == ran[1] && ran[2] == ran[3] && ran[3] == ran[4])
    #expect(Set([ran[0], ran[2], ran[5]]).count == 3)
  }

  /// Async roots that note the thread each one ran on, after an await;
  /// `failing` fail synchronously inside the run (their thread is parked).
  func asyncRoots(_ count: Int, failing: Set<Int> = [], noting threads: LockedValue<[Int: UInt]>)
    -> [Validation.AsyncRoot]
  {
    (0..<count).map { index in
      Validation.AsyncRoot(name: "async root \(index)") {
        await Task.yield()
        threads.withValue { $0[index] = threadNumber() }
        if failing.contains(index) {
          ValidationSession.failIfValidating(RootFailed())
          Issue.record("a failing root's thread went on after its failure")
        }
      }
    }
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  @Test("async roots share one executor thread while they succeed, and the next gets a new one after a failure")
  func asyncRootsShareAThread() async {
    let threads = LockedValue<[Int: UInt]>([:])
    let sound = await Validation.runAsync(asyncRoots(8, noting: threads), throwing: false)
    #expect(sound.isValid)
    let ran = threads.withValue { $0 }
    #expect(ran.count == 8 && Set(ran.values).count == 1)

    let failingThreads = LockedValue<[Int: UInt]>([:])
    let report = await Validation.runAsync(asyncRoots(5, failing: [2], noting: failingThreads), throwing: false)
    #expect(report.problems.map(\.dependency) == ["async root 2"])
    let failingRan = failingThreads.withValue { $0 }
    #expect(failingRan.count == 5)
    #expect(Set([failingRan[0], failingRan[1], failingRan[2]]).count == 1)
    #expect(failingRan[3] == failingRan[4] && failingRan[3] != failingRan[2])
  }

  @Test("a dialect whose resolutions throw runs its roots on the calling thread")
  func throwingRootsStayOnTheCaller() {
    let threads = LockedValue<[Int: UInt]>([:])
    let roots = (0..<3).map { index in
      Validation.Root(name: "root \(index)") {
        threads.withValue { $0[index] = threadNumber() }
        if index == 1 { throw RootFailed() }
      }
    }
    let report = Validation.run(roots, throwing: true)
    #expect(report.problems.map(\.dependency) == ["root 1"])
    #expect(Set(threads.withValue { $0 }.values) == [threadNumber()])
  }
}

@Suite("Validation's threads, kept for the next validation", .timeLimit(.minutes(1)))
struct ValidationThreadsTests {
  @Test("work handed over one after another runs on one thread, which waits for it")
  func oneAfterAnotherOnOneThread() {
    let threads = ValidationThreads(idleSeconds: 30)
    let ran = LockedValue<[UInt]>([])
    for _ in 0..<5 {
      let done = Signal()
      threads.run {
        ran.withValue { $0.append(threadNumber()) }
        done.raise()
      }
      #expect(done.wait())
      // The thread waits again before the next work comes.
      #expect(eventually { threads.threadsWaiting == 1 })
    }
    #expect(threads.threadsStarted == 1)
    let seen = ran.withValue { $0 }
    #expect(seen.count == 5)
    #expect(Set(seen).count == 1)
    #expect(!seen.contains(threadNumber()))
  }

  @Test("work handed over from many threads at once runs once each")
  func manyAtOnce() {
    let threads = ValidationThreads(idleSeconds: 30)
    let runs = Counter()
    onThreads(8) { _ in
      for _ in 0..<50 { threads.run { runs.increment() } }
    }
    #expect(eventually { runs.count == 400 })
    // Every thread started ends up waiting: none is lost or stuck.
    #expect(eventually { threads.threadsWaiting == threads.threadsStarted })
    #expect(runs.count == 400)
    #expect((1...400).contains(threads.threadsStarted))
  }

  @Test("a thread that waited past its limit ends, and the next work starts another")
  func idleThreadEnds() {
    let threads = ValidationThreads(idleSeconds: 0.05)
    let first = Signal()
    threads.run { first.raise() }
    #expect(first.wait())
    #expect(eventually { threads.threadsWaiting == 0 && threads.threadsStarted == 1 })
    let second = Signal()
    threads.run { second.raise() }
    #expect(second.wait())
    #expect(threads.threadsStarted == 2)
  }

  @Test("work that does not return (a parked root) keeps its thread; the next work gets another")
  func parkedWorkKeepsItsThread() {
    let threads = ValidationThreads(idleSeconds: 30)
    let parked = Signal()
    let release = Signal()
    threads.run {
      parked.raise()
      _ = release.wait()
    }
    #expect(parked.wait())
    let next = Signal()
    threads.run { next.raise() }
    #expect(next.wait())
    #expect(threads.threadsStarted == 2)
    release.raise()
  }

  @Test("a waiting thread holds nothing of the work it ran")
  func waitingThreadHoldsNothing() {
    let threads = ValidationThreads(idleSeconds: 30)
    weak var released: Thing?
    let done = Signal()
    do {
      let held = Thing()
      released = held
      threads.run {
        withExtendedLifetime(held) { done.raise() }
      }
    }
    #expect(done.wait())
    #expect(eventually { threads.threadsWaiting == 1 })
    #expect(released == nil)
  }

  @Test("what a validation's roots hold is released once it returns")
  func validationReleasesItsRoots() {
    weak var released: Thing?
    do {
      let held = Thing()
      released = held
      let root = Validation.Root(name: "root") { withExtendedLifetime(held) {} }
      #expect(Validation.run([root], throwing: false).isValid)
    }
    #expect(eventually { released == nil })
  }
}
