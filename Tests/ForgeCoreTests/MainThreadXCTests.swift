import ForgeCore
import ForgeTestSupport
import XCTest

/// XCTest, because its synchronous tests run on the main thread outside any
/// task (Swift Testing runs every test in a task): code there is the main
/// actor's, as the Swift runtime counts it, though no task's executor says so.
final class MainThreadXCTests: XCTestCase {
  func testTheMainThreadOutsideAnyTaskIsTheMainActor() {
    XCTAssertTrue(MainActorIsolation.isCurrent)
    // Asked twice: the second answer comes from the thread's cached one.
    XCTAssertTrue(MainActorIsolation.isCurrent)
    let elsewhere = Guarded<[Bool]>([])
    // XCTest on Linux enforces no time allowance: the threads' join does,
    // stopping the process with a message after a minute.
    onThreads(2, within: 60) { _ in
      let answer = MainActorIsolation.isCurrent
      elsewhere.withLock { $0.append(answer) }
    }
    XCTAssertEqual(elsewhere.withLock { $0 }, [false, false])
  }
}
