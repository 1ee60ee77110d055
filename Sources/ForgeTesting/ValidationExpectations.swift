import ForgeCore
import Testing
import XCTest

extension ValidationReport {
  /// Fails the current Swift Testing test with the whole report when it
  /// found a problem.
  ///
  /// ```swift
  /// @Test func graphIsSound() {
  ///   AppContainer.shared.validate(\.loginViewModel).expectValid()
  /// }
  /// ```
  public func expectValid(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    #expect(isValid, Comment(rawValue: description), sourceLocation: sourceLocation)
  }
}

/// Fails the current XCTest test with the whole report when `report` found
/// a problem.
///
/// ```swift
/// func testGraphIsSound() {
///   XCTAssertValid(AppContainer.shared.validate(\.loginViewModel))
/// }
/// ```
// swift-format-ignore: AlwaysUseLowerCamelCase
// Named as XCTest's own assertions are.
public func XCTAssertValid(_ report: ValidationReport, file: StaticString = #filePath, line: UInt = #line) {
  XCTAssertTrue(report.isValid, report.description, file: file, line: line)
}
