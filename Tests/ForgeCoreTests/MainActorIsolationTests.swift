import Dispatch
import ForgeCore
import ForgeTestSupport
import Testing

/// An actor of its own: its methods run on its executor, not the main actor's.
private actor Elsewhere {
  func isMainActor() -> Bool { MainActorIsolation.isCurrent }
}

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

  @Test("false on another actor and in a block another queue runs")
  func elsewhere() async {
    #expect(await Elsewhere().isMainActor() == false)
    let onOtherQueue = await withCheckedContinuation { continuation in
      DispatchQueue(label: "forge.elsewhere").async { continuation.resume(returning: MainActorIsolation.isCurrent) }
    }
    #expect(onOtherQueue == false)
  }
}
