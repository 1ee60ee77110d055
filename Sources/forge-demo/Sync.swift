import DependencyFetcher

// Background sync, wired with DependencyFetcher: services are static keys,
// and a fetcher makes each one once.

protocol SyncTransport: Sendable {
  func upload(_ items: [String]) -> Int
}

final class LoopbackTransport: SyncTransport {
  func upload(_ items: [String]) -> Int { items.count }
}

/// Remembers what has been uploaded.
final class SyncJournal: Sendable {
  private let entries = Locked<[String]>([])
  func record(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.current }
}

extension Service where T == SyncTransport {
  static let transport = Service(LoopbackTransport.init)
}

extension Service where T == SyncJournal {
  static let journal = Service(SyncJournal.init)
}

/// Uploads the signed-in user's tasks.
struct SyncEngine {
  let fetcher: Fetcher

  func sync(_ titles: [String]) {
    let sent = fetcher.fetch(.transport).upload(titles)
    fetcher.fetch(.journal).record("uploaded \(sent) item(s)")
  }
}

/// A transport that fails every upload, for the demo's "test" fetcher.
final class OfflineTransport: SyncTransport {
  func upload(_ items: [String]) -> Int { 0 }
}
