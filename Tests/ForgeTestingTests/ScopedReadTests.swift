import Forge
import ForgeCore
import ForgeTesting
import Testing

/// A kept instance that says which build made it.
final class ScopedReadProbe: Sendable {
  let value: Int
  init(_ value: Int) { self.value = value }
}

/// A dependency built from another, one beside them, and an async one
/// that reads the one beside them.
final class ScopedReadContainer: Container, @unchecked Sendable {
  var value: Int { provide(.singleton) { 1 } }
  var dependent: ScopedReadProbe { provide(.singleton) { ScopedReadProbe(self.value) } }
  var unrelated: ScopedReadProbe { provide(.singleton) { ScopedReadProbe(7) } }
  var flag: String { provide(.singleton) { "real" } }
  var reader: AsyncDependency<String> {
    provide(.singleton) {
      await Task.yield()
      return "read \(self.unrelated.value)"
    }
  }
}

/// A read inside an override scope of a kept dependency the scope does not
/// override is served the container's instance at once, without the
/// general path, when nothing else applies. These pin down when something
/// else applies: each fails if the short path skips that check.
@Suite("Forge: reads in a scope of what it does not override", .timeLimit(.minutes(1)))
struct ScopedReadTests {
  @Test("a kept dependency built from an overridden one is built again for the scope")
  func reachesTheOverride() {
    let container = ScopedReadContainer()
    let outside = container.dependent
    let unrelated = container.unrelated
    container.withOverrides {
      $0.override(\.value) { 99 }
    } run: {
      // Read first: until then, the override's key is being learnt, which
      // keeps every read of the container on the general path.
      #expect(container.value == 99)
      #expect(container.dependent.value == 99)
      #expect(container.dependent !== outside)
      // What reaches no override is the container's instance.
      #expect(container.unrelated === unrelated)
    }
    #expect(container.dependent === outside)
  }

  @Test("a container a test isolates serves fresh instances of what it kept before")
  func isolatedStore() {
    let container = ScopedReadContainer()
    let outside = container.unrelated
    withIsolatedContainers(container) {
      #expect(container.unrelated !== outside)
    }
    #expect(container.unrelated === outside)
  }

  @Test("a strict mode that names a dependency of a container the test does not isolate stops its read")
  func strictByName() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = ScopedReadContainer()
      _ = container.unrelated
      let elsewhere = ScopedReadContainer()
      withIsolatedContainers(elsewhere, strict: .dependencies(["ScopedReadContainer.unrelated"])) {
        _ = container.unrelated
      }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("[Forge.strictMode] ScopedReadContainer.unrelated was resolved"), "\(stderr)")
  }

  @Test("an async build records the kept dependency it reads, in a scope and outside any")
  func asyncBuildRecords() async throws {
    // Outside any scope, the build itself raises the gate that a scope
    // raises.
    let container = ScopedReadContainer()
    _ = container.unrelated
    #expect(try await container.reader.value == "read 7")
    let graph = container.dependencyGraph()
    #expect(graph.dependencies(of: "ScopedReadContainer.reader").map(\.name) == ["ScopedReadContainer.unrelated"])
    // In a scope, what the build reads decides where its instance is kept:
    // a build that reads an override is the scope's.
    let scoped = ScopedReadContainer()
    _ = scoped.unrelated
    let read = try await scoped.withOverrides {
      $0.override(\.value) { 99 }
    } run: {
      try await scoped.reader.value
    }
    #expect(read == "read 7")
    #expect(try await scoped.reader.value == "read 7")
    let scopedGraph = scoped.dependencyGraph()
    #expect(scopedGraph.dependencies(of: "ScopedReadContainer.reader").map(\.name) == ["ScopedReadContainer.unrelated"])
  }
}
