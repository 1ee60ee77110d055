import ForgeTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("The tests' own threads", .timeLimit(.minutes(1)))
struct TestThreadTests {
  @Test("a thread still running when its join's bound passes stops the process with a message, not a hang")
  func joinIsBounded() async throws {
    let result = try #require(
      await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        RealThread { sleep(30) }.join(within: 0.2)
      })
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(message.contains("a test thread was still running after 0 s: a deadlock?"))
  }

  @Test("a thread that ends is joined at once")
  func joinReturns() {
    let ran = Signal()
    RealThread { ran.raise() }.join(within: 5)
    #expect(ran.isRaised)
  }
}
