import ForgeInject
import Testing

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
