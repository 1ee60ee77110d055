import DependencyFetcher
import Testing

// The README's DependencyFetcher example, kept compiling and checked here.

protocol AuditLog { func log(_ line: String) }
final class PrintLog: AuditLog { func log(_ line: String) { print(line) } }
final class SilentLog: AuditLog { func log(_ line: String) {} }

extension Service where T == AuditLog {
  static let auditLog = Service(PrintLog.init)
}

final class Auditor {
  let log: AuditLog
  init(log: AuditLog) { self.log = log }
}

extension Service where T == Auditor {
  static let auditor = Service { fetcher in Auditor(log: fetcher.fetch(.auditLog)) }
}

@Suite("README")
struct ReadmeExampleTests {
  @Test("the DependencyFetcher example works as the README says")
  func fetcherExample() {
    let fetcher = Fetcher.createDefault()
    fetcher.fetch(.auditLog).log("made once, then reused")
    #expect(fetcher.fetch(.auditLog) as AnyObject === fetcher.fetch(.auditLog) as AnyObject)

    let testFetcher = Fetcher.create()
      .addOverride(for: Service.auditLog, instance: SilentLog())
      .done()
    #expect(testFetcher.fetch(.auditLog) is SilentLog)
    #expect(testFetcher.fetch(.auditor).log is SilentLog)
  }
}
