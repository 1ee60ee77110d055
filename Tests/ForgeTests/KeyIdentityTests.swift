import Forge
import Testing

// Issue 11: a declaration's identity includes its file. The same key
// declared in two files (as two modules extending `AppContainer` with
// `var logger` do) names two dependencies; in one file it names one.
// KeyIdentityOtherFile.swift declares `otherFileLogger` with key "logger".

final class KeyIdentityContainer: Container, @unchecked Sendable {
  var thisFileLogger: Service { provide(.singleton, key: "logger") { Service("this file") } }
  var sameFileAgain: Service { provide(.singleton, key: "logger") { Service("same file again") } }
}

@Suite("Declaration identity")
struct KeyIdentityTests {
  @Test("one key in two files: two dependencies, each with its own instance, on any path")
  func twoFiles() {
    let container = KeyIdentityContainer()
    let mine = container.thisFileLogger
    let theirs = container.otherFileLogger
    #expect(mine.label == "this file")
    #expect(theirs.label == "other file")
    // Again, now that both are cached and published for lock-free reads.
    for _ in 0..<3 {
      #expect(container.thisFileLogger === mine)
      #expect(container.otherFileLogger === theirs)
    }
  }

  @Test("one key twice in one file: one dependency, as an explicit key says")
  func oneFile() {
    let container = KeyIdentityContainer()
    #expect(container.thisFileLogger === container.sameFileAgain)
  }

  @Test("overrides and resets find the declaration of their own file")
  func overridesPerFile() {
    let container = KeyIdentityContainer()
    _ = container.thisFileLogger
    container.override(\.otherFileLogger) { Service("mock") }
    #expect(container.otherFileLogger.label == "mock")
    #expect(container.thisFileLogger.label == "this file")
    container.removeOverride(for: \.otherFileLogger)
    #expect(container.otherFileLogger.label == "other file")
  }
}
