import ForgeCore
import ForgeTestSupport
import Testing

@Suite("ForgeCore: whether the caller is on the main actor", .timeLimit(.minutes(1)))
struct MainActorIsolationTests {
  @Test("true on the main actor, false in other tasks and on other threads, without stopping the program")
  func isCurrent() async {
    #expect(await MainActor.run { MainActorIsolation.isCurrent })
    #expect(await Task.detached { MainActorIsolation.isCurrent }.value == false)
    let answers = Guarded<[Bool]>([])
    onThreads(2) { _ in
      let answer = MainActorIsolation.isCurrent
      answers.withLock { $0.append(answer) }
    }
    #expect(answers.withLock { $0 } == [false, false])
  }
}
