import ForgeTestSupport
import SwiftPod
import Testing

/// Providers with one of each problem SwiftPod can have, and sound ones.
enum ValidatedProviders {
  struct ChildScope: ProviderScope { let children: [ProviderScope] = [] }
  struct ParentScope: ProviderScope { let children: [ProviderScope] = [ChildScope()] }
  final class Part: Sendable {
    let parts: [Part]
    init(_ parts: [Part] = []) { self.parts = parts }
  }
  final class Box: @unchecked Sendable { var loop: Provider<Part>? }
  static let box = Box()

  // A cycle: loopA → loopB → loopA.
  static let loopA = Provider("loopA") { pod in Part([pod.resolve(box.loop!)]) }
  static let loopB = Provider("loopB", scope: AlwaysCreateNewScope()) { pod in Part([pod.resolve(loopA)]) }
  // Captive: a singleton holding a parent-scoped part; a parent-scoped part
  // holding a child-scoped one (clearing the child scope leaves the parent's).
  static let parentPart = Provider("parentPart", scope: ParentScope()) { _ in Part() }
  static let childPart = Provider("childPart", scope: ChildScope()) { _ in Part() }
  static let singletonHolder = Provider("singletonHolder") { pod in Part([pod.resolve(parentPart)]) }
  static let parentHolder = Provider("parentHolder", scope: ParentScope()) { pod in Part([pod.resolve(childPart)]) }
  // Sound: a child-scoped part holding a parent-scoped one goes with it.
  static let childHolder = Provider("childHolder", scope: ChildScope()) { pod in Part([pod.resolve(parentPart)]) }
  static let leafBuilds = Guarded(0)
  static let leaf = Provider("leaf") { _ in
    leafBuilds.withLock { $0 += 1 }
    return Part()
  }
  static let root = Provider("root", scope: AlwaysCreateNewScope()) { pod in Part([pod.resolve(leaf)]) }
}

@Suite("SwiftPod: validate()", .timeLimit(.minutes(1)))
struct ValidationTests {
  @Test("a broken graph reports its cycle and its captive dependencies, by the scope hierarchy")
  func broken() {
    ValidatedProviders.box.loop = ValidatedProviders.loopB
    let report = SwiftPod().validate(
      ValidatedProviders.loopA, ValidatedProviders.singletonHolder, ValidatedProviders.parentHolder,
      ValidatedProviders.childHolder)
    #expect(report.problems.map(\.id) == [.cycle, .lifetimeMismatch, .lifetimeMismatch])
    #expect(report.problems(.cycle).first?.description.contains("Dependency cycle: loopA → loopB → loopA.") == true)
    #expect(
      report.problems(.lifetimeMismatch).map(\.chain) == [
        ["singletonHolder", "parentPart"], ["parentHolder", "childPart"],
      ])
    #expect(
      report.problems(.lifetimeMismatch).first?.description.hasPrefix(
        "[Forge.lifetimeMismatch] singletonHolder (singleton) holds parentPart (ParentScope), which is kept for less long."
      ) == true)
  }

  @Test("a sound graph gives an empty report and the pod keeps nothing of it")
  func sound() {
    let pod = SwiftPod()
    let before = ValidatedProviders.leafBuilds.withLock { $0 }
    let report = pod.validate(ValidatedProviders.root, ValidatedProviders.childHolder)
    #expect(report.isValid, "\(report)")
    #expect(report.checked == ["root", "leaf", "childHolder", "parentPart"])
    #expect(ValidatedProviders.leafBuilds.withLock { $0 } == before + 1)
    // The pod builds its own singleton: validation's was not kept.
    let leaf = pod.resolve(ValidatedProviders.leaf)
    #expect(ValidatedProviders.leafBuilds.withLock { $0 } == before + 2)
    #expect(pod.resolve(ValidatedProviders.root).parts[0] === leaf)
  }
}

@Suite("SwiftPod: validate() after the pod resolved", .timeLimit(.minutes(1)))
struct ValidationAfterResolvingTests {
  static let builds = Guarded(0)
  static let counted = Provider("counted") { _ in
    builds.withLock { $0 += 1 }
    return ValidatedProviders.Part()
  }
  static let holder = Provider("holder", scope: AlwaysCreateNewScope()) { pod in
    ValidatedProviders.Part([pod.resolve(counted)])
  }

  @Test("validation builds its own instance and leaves the pod's, and its cached read, as they were")
  func buildsApart() {
    let pod = SwiftPod()
    let other = SwiftPod()
    let kept = pod.resolve(Self.counted)
    let otherKept = other.resolve(Self.counted)
    let before = Self.builds.withLock { $0 }
    // The provider now caches a slot of one of the pods; validating either
    // must not serve (or replace) what that slot holds.
    for validated in [pod, other] {
      let report = validated.validate(Self.holder)
      #expect(report.isValid, "\(report)")
      #expect(report.checked == ["holder", "counted"])
    }
    #expect(Self.builds.withLock { $0 } == before + 2)
    #expect(pod.resolve(Self.counted) === kept)
    #expect(other.resolve(Self.counted) === otherKept)
    #expect(pod.resolve(Self.holder).parts[0] === kept)
    #expect(Self.builds.withLock { $0 } == before + 2)
  }
}
