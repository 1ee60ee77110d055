import DependencyFetcher
import ForgeTestSupport
import Testing

@Suite("DependencyFetcher and shutdown()", .timeLimit(.minutes(1)))
struct ShutdownTests {
  @Test("services made from others shut down first")
  func order() async {
    let log = Guarded<[String]>([])
    let transport: Service<StoppablePart> = Service("transport") { StoppablePart("transport", log: log) }
    let sync: Service<StoppablePart> = Service("sync") { fetcher in
      StoppablePart("sync", log: log, [fetcher.fetch(transport)])
    }
    let fetcher = Fetcher.createDefault()
    _ = fetcher.fetch(sync)
    await fetcher.shutdown()
    #expect(log.withLock { $0 } == ["sync", "transport"])
  }
}
