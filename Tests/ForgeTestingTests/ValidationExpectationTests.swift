import Forge
import ForgeTesting
import Testing
import XCTest

final class ExpectationContainer: Container, @unchecked Sendable {
  var sound: [String] { provide(.singleton) { ["fine"] } }
  var loop: [Any] { provide(.singleton) { [self.loop] } }
}

@Suite("ForgeTesting: validation expectations")
struct ValidationExpectationTests {
  @Test("expectValid passes on a sound report")
  func passes() {
    ExpectationContainer().validate(\.sound).expectValid()
  }

  @Test("expectValid fails the test with the whole report")
  func fails() {
    let report = ExpectationContainer().validate(\.loop)
    withKnownIssue("the loop is a cycle: expectValid must record it") {
      report.expectValid()
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("[Forge.cycle] Dependency cycle: ExpectationContainer.loop") }
    }
  }
}

final class ValidationXCTests: XCTestCase {
  func testAssertValidPassesOnASoundReport() {
    XCTAssertValid(ExpectationContainer().validate(\.sound))
  }
}
