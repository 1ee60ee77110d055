import DependencyFetcher
import Testing

/// Services whose fetch stops, each declared on a line the tests know.
enum LocatedServices {
  static let firstLine = #line + 1
  static let first: Service<[Any]> = Service("first") { fetcher in [fetcher.fetch(second)] }
  static let second: Service<[Any]> = Service("second") { fetcher in [fetcher.fetch(first)] }

  static let selfishLine = #line + 1
  static let selfish: Service<Int> = Service { fetcher in fetcher.fetch(selfish) }
}

@Suite("Where a DependencyFetcher stop points")
struct StopLocationTests {
  @Test("a service cycle stops at the declaration of the service that closes it")
  func cycleStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Fetcher.createDefault().fetch(LocatedServices.first)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "DependencyFetcherTests/StopLocationTests.swift:\(LocatedServices.firstLine): Fatal error: DependencyFetcher: [Forge.cycle]"
      ))
  }

  @Test("an unnamed service's stop points at it too")
  func unnamedStopsAtDeclaration() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Fetcher.createDefault().fetch(LocatedServices.selfish)
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      stderr.contains(
        "DependencyFetcherTests/StopLocationTests.swift:\(LocatedServices.selfishLine): Fatal error: DependencyFetcher: [Forge.cycle]"
      ))
  }
}
