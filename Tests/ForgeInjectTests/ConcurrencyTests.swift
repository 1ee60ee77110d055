import ForgeInject
import ForgeTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("ForgeContainer under concurrency", .timeLimit(.minutes(1)))
struct ConcurrencyTests {
  @Test("concurrent resolve() of one singleton builds it once")
  func singletonOnce() {
    for _ in 0..<10 {
      let container = ForgeContainer()
      let builds = Counter()
      container.register(with: .singleton) { _ in
        builds.increment()
        return Widget()
      }
      let seen = IdentitySet()
      onThreads(16) { _ in
        let widget: Widget = try! container.resolve()
        seen.insert(widget)
      }
      #expect(builds.count == 1)
      #expect(seen.count == 1)
    }
  }

  @Test("threads' first resolutions of a registered type, at the same moment, all find it")
  func firstResolutionsRacing() {
    // The first resolution turns the registration into a slot under the
    // store's lock; a thread that reads the table without the lock in that
    // moment sees the slot before its factory. It used to report the type
    // as not registered (a CI run stopped on it, as `typeMismatch` from
    // `try!`); it must wait for the factory instead.
    // Every round is a barrier of all the threads: under ThreadSanitizer
    // 20,000 of them took more than the minute the suite allows when the
    // two cores were shared.
    let rounds = runsUnderThreadSanitizer ? 4_000 : 20_000
    let threads = 6
    let containers = (0..<rounds).map { _ in
      let container = ForgeContainer()
      container.register(with: .singleton) { _ in Widget() }
      return container
    }
    let arrived = RoundGate()
    let failures = Counter()
    onThreads(threads) { _ in
      for (round, container) in containers.enumerated() {
        arrived.arrive(round: round, threads: threads)
        if (try? container.resolve() as Widget) == nil { failures.increment() }
      }
    }
    #expect(failures.count == 0)
  }

  @Test("concurrent resolve, register and reset never corrupt state")
  func stress() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Widget("initial") }
    container.register(with: .weak) { _ in NetworkService() as NetworkServiceProtocol }
    onThreads(8) { thread in
      for round in 0..<400 {
        switch (thread + round) % 6 {
        case 0: container.register(with: .singleton) { _ in Widget("round \(round)") }
        case 1: container.reset(preserving: [])
        case 2: _ = container.resolveAll(conforming: AnyObject.self)
        case 3: _ = try? container.resolve() as NetworkServiceProtocol
        default: _ = try? container.resolve() as Widget
        }
      }
    }
    let widget: Widget = try container.resolve()
    #expect(widget.label.hasPrefix("round") || widget.label == "initial")
  }

  @Test("threads building a transient type while another re-registers it always use a whole registration")
  func reRegisterWhileBuilding() {
    let container = ForgeContainer()
    container.register { _ in Widget("first") }
    let built = Counter()
    onThreads(3) { thread in
      for round in 0..<3_000 {
        if thread == 0 {
          let label = round.isMultiple(of: 2) ? "even" : "odd"
          container.register { _ in Widget(label) }
        } else if let widget = try? container.resolve() as Widget,
          ["first", "even", "odd"].contains(widget.label)
        {
          built.increment()
        }
      }
    }
    #expect(built.count == 6_000)
  }
}

/// Holds threads at each round until all have arrived, yielding the core
/// while they wait: more threads than cores leave each round together, and
/// the system preempts some in the middle of what they do next.
private final class RoundGate: Sendable {
  private let arrivals = Atomic(0)
  func arrive(round: Int, threads: Int) {
    arrivals.add(1, ordering: .acquiringAndReleasing)
    while arrivals.load(ordering: .acquiring) < threads * (round + 1) { sched_yield() }
  }
}
