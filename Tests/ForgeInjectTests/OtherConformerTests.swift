import ForgeInject
import Testing

/// A container of the user's own that conforms to `ForgeContainerProtocol`
/// (a recording fake, say): it keeps synchronous builders only.
final class RecordingContainer: ForgeContainerProtocol, @unchecked Sendable {
  // @unchecked: each test uses its own, from one task.
  var registered: [String] = []
  func register<T>(with policy: ForgeRetainPolicy, builder: @escaping @Sendable (ForgeContainerProtocol) throws -> T) {
    registered.append(String(reflecting: T.self))
  }
  func resolve<T>() throws -> T { throw ForgeContainerError.missingFactoryMethod(String(reflecting: T.self)) }
  func resolveWithType<T>(_ type: T.Type) throws -> T { try resolve() }
  func resolveAll<T>(conforming protocol: T.Type) -> [T] { [] }
  func reset(preserving types: [Any.Type]) {}
}

struct ConformerArchive: Sendable {}

@Suite("ForgeInject: builders another conformer cannot run", .timeLimit(.minutes(1)))
struct OtherConformerTests {
  @Test("a synchronous builder goes to the conformer's own register")
  func synchronousBuilder() {
    let container = RecordingContainer()
    container.register(with: .singleton) { _ in ConformerArchive() }
    container.register { _ in 1 }
    #expect(container.registered == ["ForgeInjectTests.ConformerArchive", "Swift.Int"])
  }

  @Test("an async builder stops at the user's registration, naming the type and the fix")
  func asyncBuilder() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      RecordingContainer().register(with: .singleton) { _ async in ConformerArchive() }
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("ForgeInjectTests/OtherConformerTests.swift:"), "\(stderr)")
    #expect(
      stderr.contains(
        "Fatal error: ForgeInject: [Forge.missing] ForgeInjectTests.ConformerArchive has an async builder but "
          + "ForgeInjectTests.RecordingContainer cannot run one"), "\(stderr)")
    #expect(stderr.contains("To fix it, register it with a ForgeContainer."), "\(stderr)")
  }

  @Test("a main-actor builder stops at the user's registration, naming the type and the fix")
  func mainActorBuilder() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      RecordingContainer().register(with: .singleton, onMainActor: { _ in ConformerArchive() })
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("ForgeInjectTests/OtherConformerTests.swift:"), "\(stderr)")
    #expect(
      stderr.contains(
        "Fatal error: ForgeInject: [Forge.missing] ForgeInjectTests.ConformerArchive has a main-actor builder but "
          + "ForgeInjectTests.RecordingContainer cannot run one"), "\(stderr)")
    #expect(stderr.contains("or with register(with:mainActorBuilder:)."), "\(stderr)")
  }

  @Test("the seed's eager main-actor builder runs at once and registers its instance with the conformer")
  @MainActor
  func eagerMainActorBuilder() {
    let container = RecordingContainer()
    var built = 0
    container.register(
      with: .singleton,
      mainActorBuilder: { _ in
        built += 1
        return ConformerArchive()
      })
    #expect(built == 1)
    #expect(container.registered == ["ForgeInjectTests.ConformerArchive"])
  }
}
