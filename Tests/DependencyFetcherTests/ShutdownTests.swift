import DependencyFetcher
import ForgeTestSupport
import Testing

@Suite("DependencyFetcher and shutdown()", .timeLimit(.minutes(1)))
struct ShutdownTests {
  final class Part: GracefulShutdown {
    let name: String
    let log: Guarded<[String]>
    init(_ name: String, log: Guarded<[String]>, _ parts: [Part] = []) {
      self.name = name
      self.log = log
    }
    func shutdown() async throws { log.withLock { $0.append(name) } }
  }

  @Test("services made from others shut down first")
  func order() async {
    let log = Guarded<[String]>([])
    let transport: Service<Part> = Service("transport") { Part("transport", log: log) }
    let sync: Service<Part> = Service("sync") { fetcher in Part("sync", log: log, [fetcher.fetch(transport)]) }
    let fetcher = Fetcher.createDefault()
    _ = fetcher.fetch(sync)
    await fetcher.shutdown()
    #expect(log.withLock { $0 } == ["sync", "transport"])
  }
}
