import Forge
import Testing

@Suite("Overrides")
struct OverrideTests {
  let container = TestContainer()

  @Test("override applies even after the singleton was built, and is never kept")
  func overrideAfterBuild() {
    let real = container.singleton
    let calls = Counter()
    container.override(\.singleton) {
      calls.increment()
      return Service("mock")
    }
    let callsBefore = calls.count
    let first = container.singleton
    let second = container.singleton
    #expect(first.label == "mock")
    #expect(first !== second)
    #expect(calls.count == callsBefore + 2)
    container.removeOverride(for: \.singleton)
    #expect(container.singleton === real)
  }

  @Test("the key path maps to the property on Linux as on Apple platforms")
  func keyPathsAreDistinct() {
    container.override(\.cached) { Service("cached mock") }
    container.override(\.transient) { Service("transient mock") }
    #expect(container.cached.label == "cached mock")
    #expect(container.transient.label == "transient mock")
    #expect(container.singleton.label == "real")
  }

  @Test("overriding never runs the real factory")
  func realFactoryNotRun() {
    container.override(\.singleton) { Service("mock") }
    _ = container.singleton
    #expect(container.builds.count == 0)
  }

  @Test("overrides beat preview factories")
  func overrideBeatsPreview() {
    container.override(\.previewed) { Service("mock") }
    Forge.withPreviewMode {
      #expect(container.previewed.label == "mock")
    }
  }

  @Test("a subclass test container overrides a property with its own provide")
  func subclassContainer() {
    final class Stubbed: TestContainer, @unchecked Sendable {
      override var singleton: Service { provide { Service("stub") } }
    }
    let stubbed = Stubbed()
    #expect(stubbed.singleton.label == "stub")
    #expect(stubbed.dependent[0].label == "stub")
    stubbed.override(\.singleton) { Service("override") }
    #expect(stubbed.singleton.label == "override")
  }
}

@Suite("withOverrides", .timeLimit(.minutes(1)))
struct WithOverridesTests {
  let container = TestContainer()

  @Test("applies inside the closure and is gone after it")
  func scoped() {
    container.withOverrides {
      $0.override(\.singleton) { Service("mock") }
    } run: {
      #expect(container.singleton.label == "mock")
    }
    #expect(container.singleton.label == "real")
  }

  @Test("is removed when the closure throws")
  func throwing() {
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try container.withOverrides {
        $0.override(\.singleton) { Service("mock") }
      } run: {
        throw Failure()
      }
    }
    #expect(container.singleton.label == "real")
  }

  @Test("async form, also restored after throwing")
  func async() async {
    struct Failure: Error {}
    await #expect(throws: Failure.self) {
      try await container.withOverrides {
        $0.override(\.singleton) { Service("mock") }
      } run: {
        await Task.yield()
        #expect(container.singleton.label == "mock")
        throw Failure()
      }
    }
    #expect(container.singleton.label == "real")
  }

  @Test("returns the closure's value, sync and async (issue 11)")
  func returnsValue() async throws {
    let label = container.withOverrides {
      $0.override(\.singleton) { Service("mock") }
    } run: {
      container.singleton.label
    }
    #expect(label == "mock")

    let labels: [String] = try await container.withOverrides {
      $0.override(\.singleton) { Service("async mock") }
    } run: {
      await Task.yield()
      guard container.singleton.label == "async mock" else { throw CancellationError() }
      return [container.singleton.label, container.transient.label]
    }
    #expect(labels == ["async mock", "real"])
    #expect(container.singleton.label == "real")
  }

  @Test("nested scopes shadow outer ones and see the rest")
  func nested() {
    container.withOverrides {
      $0.override(\.singleton) { Service("outer") }
      $0.override(\.cached) { Service("outer cached") }
    } run: {
      container.withOverrides {
        $0.override(\.singleton) { Service("inner") }
      } run: {
        #expect(container.singleton.label == "inner")
        #expect(container.cached.label == "outer cached")
      }
      #expect(container.singleton.label == "outer")
    }
  }

  @Test("beats a container-wide override")
  func beatsContainerOverride() {
    container.override(\.singleton) { Service("container") }
    container.withOverrides {
      $0.override(\.singleton) { Service("scoped") }
    } run: {
      #expect(container.singleton.label == "scoped")
    }
    #expect(container.singleton.label == "container")
  }

  @Test("instances built from an overridden dependency do not stay cached")
  func dependentsNotKept() {
    container.withOverrides {
      $0.override(\.cached) { Service("mock") }
    } run: {
      let inside = container.cachedDependent
      #expect(inside[0].label == "mock")
      #expect(container.cachedDependent[0] === inside[0])
    }
    #expect(container.cachedDependent[0].label == "real")
  }

  @Test("a dependent built before the scope uses the scope's override inside it, and the real one after")
  func keptDependentsSeeOverride() {
    let real = container.dependent
    container.withOverrides {
      $0.override(\.singleton) { Service("mock") }
    } run: {
      #expect(container.dependent[0].label == "mock")
    }
    #expect(container.dependent[0] === real[0])
  }

  @Test("parallel tasks overriding the same shared container never see each other's overrides")
  func parallelIsolation() async {
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<16 {
        group.addTask {
          let label = "task \(index)"
          await AppContainer.shared.withOverrides {
            $0.override(\.forgeTestsService) { Service(label) }
          } run: {
            for _ in 0..<20 {
              #expect(AppContainer.shared.forgeTestsService.label == label)
              #expect(AppContainer.shared.forgeTestsConsumer[0].label == label)
              await Task.yield()
            }
          }
        }
      }
    }
    #expect(AppContainer.shared.forgeTestsService.label == "real")
    #expect(AppContainer.shared.forgeTestsConsumer[0].label == "real")
  }

  @Test("works from the main actor")
  @MainActor
  func mainActor() async {
    var seen: [String] = []
    await container.withOverrides {
      $0.override(\.singleton) { Service("mock") }
    } run: {
      await Task.yield()
      seen.append(container.singleton.label)
    }
    #expect(seen == ["mock"])
  }
}

@Suite("Previews")
struct PreviewTests {
  let container = TestContainer()

  @Test("outside a preview the real factory is used")
  func notPreview() {
    #expect(!Forge.isPreviewMode)
    #expect(container.previewed.label == "real")
  }

  @Test("withPreviewMode uses preview factories, never keeps their values, and ends with the closure")
  func preview() async {
    let real = container.previewed
    Forge.withPreviewMode {
      #expect(Forge.isPreviewMode)
      #expect(container.previewed.label == "preview")
      #expect(container.previewed !== container.previewed)
    }
    await Forge.withPreviewMode {
      await Task.yield()
      #expect(container.previewed.label == "preview")
    }
    #expect(container.previewed === real)
  }

  @Test("dependencies without a preview factory use the real one in previews")
  func noPreviewFactory() {
    Forge.withPreviewMode {
      #expect(container.singleton.label == "real")
    }
  }
}
