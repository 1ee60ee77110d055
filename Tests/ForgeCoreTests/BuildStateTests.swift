import ForgeCore
import Testing

@Suite("Build state machine")
struct BuildStateTests {
  let one = ObjectIdentifier(Thing.self)
  let two = ObjectIdentifier(Counter.self)

  @Test("the first asker builds; others wait for it; the builder asking again is a cycle")
  func transitions() {
    var state = BuildState()
    guard case .build(let ticket) = state.begin(by: one, hasInstance: false, lifetime: .singleton) else {
      Issue.record("the first asker must build")
      return
    }
    #expect(state.begin(by: two, hasInstance: false, lifetime: .singleton) == .wait(for: one))
    #expect(state.begin(by: one, hasInstance: false, lifetime: .singleton) == .cycle)
    #expect(state.buildingLifetime == .singleton)
    let kept = state.finish(ticket)
    #expect(kept)
    #expect(state.building == nil)
    #expect(state.begin(by: two, hasInstance: true, lifetime: .singleton) == .take)
  }

  @Test("a build that fails lets the next asker build")
  func abandon() {
    var state = BuildState()
    guard case .build(let ticket) = state.begin(by: one, hasInstance: false, lifetime: .cached) else {
      Issue.record("the first asker must build")
      return
    }
    state.abandon(ticket)
    guard case .build(let next) = state.begin(by: two, hasInstance: false, lifetime: .cached) else {
      Issue.record("after a failed build, the next asker must build")
      return
    }
    #expect(next.builder == two)
    #expect(next.generation == ticket.generation)
  }

  @Test("an invalidation during a build keeps its result from being kept, and waiters build anew")
  func invalidation() {
    var state = BuildState()
    guard case .build(let stale) = state.begin(by: one, hasInstance: false, lifetime: .cached) else {
      Issue.record("the first asker must build")
      return
    }
    state.invalidate()
    // The stale build still runs: newcomers wait for it rather than race it.
    #expect(state.begin(by: two, hasInstance: false, lifetime: .cached) == .wait(for: one))
    let staleKept = state.finish(stale)
    #expect(!staleKept)
    guard case .build(let fresh) = state.begin(by: two, hasInstance: false, lifetime: .cached) else {
      Issue.record("after a stale build, the next asker must build")
      return
    }
    #expect(fresh.generation == stale.generation + 1)
    let freshKept = state.finish(fresh)
    #expect(freshKept)
  }
}
