import Foundation
import Testing

// Compile-time checks (issues 11 and 13): user files compiled in Swift 6 language
// mode against the modules this test run built. Accepted files must compile
// without a warning; each rejected file must fail with the error its
// `// expected-error:` line names.

/// Where the fixtures are, beside this target's sources.
private let fixtures = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("CompileFixtures")
private let packageRoot = fixtures.deletingLastPathComponent().deletingLastPathComponent()

/// The build folder of the running test executable (`…/debug`, `…/release`),
/// which holds the modules it was linked with.
private var buildFolder: URL? {
  #if os(Linux)
    guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
      return nil
    }
    return URL(fileURLWithPath: executable).deletingLastPathComponent()
  #else
    return nil
  #endif
}

private func fixtureFiles(_ kind: String) -> [URL] {
  let folder = fixtures.appendingPathComponent(kind)
  let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
  return names.filter { $0.hasSuffix(".swift") }.sorted().map { folder.appendingPathComponent($0) }
}

/// Type-checks `file` in Swift 6 language mode against the test run's
/// modules: the exit status and everything the compiler printed.
private func typecheck(_ file: URL, in build: URL) throws -> (status: Int32, output: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [
    "swiftc", "-typecheck", "-swift-version", "6",
    "-I", build.appendingPathComponent("Modules").path,
    "-Xcc", "-fmodule-map-file=\(build.appendingPathComponent("CForgeAtomics.build/module.modulemap").path)",
    "-Xcc", "-I", "-Xcc", packageRoot.appendingPathComponent("Sources/CForgeAtomics/include").path,
    file.path,
  ]
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  try process.run()
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

@Suite("Compile-time checks of user files in Swift 6 mode", .timeLimit(.minutes(5)))
struct CompileTimeTests {
  @Test(
    "accepted files compile in Swift 6 mode without a warning",
    .enabled(if: buildFolder != nil, "finds the test run's modules through /proc (Linux)"),
    arguments: fixtureFiles("accepted"))
  func accepted(_ file: URL) throws {
    let build = try #require(buildFolder)
    let result = try typecheck(file, in: build)
    #expect(result.status == 0, "\(file.lastPathComponent) was rejected:\n\(result.output)")
    #expect(!result.output.contains("warning:"), "\(file.lastPathComponent) warns:\n\(result.output)")
  }

  @Test(
    "rejected files fail with the error they name",
    .enabled(if: buildFolder != nil, "finds the test run's modules through /proc (Linux)"),
    arguments: fixtureFiles("rejected"))
  func rejected(_ file: URL) throws {
    let build = try #require(buildFolder)
    let source = try String(contentsOf: file, encoding: .utf8)
    let marker = "// expected-error: "
    let expected = try #require(
      source.split(separator: "\n").first { $0.hasPrefix(marker) }.map { String($0.dropFirst(marker.count)) },
      "\(file.lastPathComponent) names no expected error")
    let result = try typecheck(file, in: build)
    #expect(result.status != 0, "\(file.lastPathComponent) compiled")
    let errors = result.output.split(separator: "\n").filter { $0.contains("error:") }
    #expect(
      errors.contains { $0.contains(expected) }, "\(file.lastPathComponent) failed otherwise:\n\(result.output)")
  }

  @Test("there are fixtures of both kinds")
  func fixturesExist() {
    #expect(fixtureFiles("accepted").count >= 1)
    #expect(fixtureFiles("rejected").count >= 4)
  }
}
