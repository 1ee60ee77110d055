import ForgeInject
import Testing

// Issue 11: a failure names the type that is really missing, the chain of
// builds that needed it, and a fix for that type.

protocol ChainMarker: Sendable {}
final class ChainC: ChainMarker {}
final class ChainB: Sendable {
  let c: ChainC
  init(c: ChainC) { self.c = c }
}
final class ChainA: Sendable {
  let b: ChainB
  init(b: ChainB) { self.b = b }
}

@Injectable
final class ChainScreen {
  let a: ChainA
}

/// A, B registered; C, which B needs, is not.
func makeChainContainer() -> ForgeContainer {
  let container = ForgeContainer()
  container.register(with: .singleton) { c in ChainA(b: try c.resolve()) }
  container.register(with: .transient) { c in ChainB(c: try c.resolve()) }
  return container
}

@Suite("Errors carry the chain")
struct ErrorChainTests {
  @Test("resolving A reports C as missing, with the chain A → B → C")
  func chain() {
    #expect(
      throws: ForgeContainerError.missingFactoryMethod(
        "ForgeInjectTests.ChainC (chain: ForgeInjectTests.ChainA → ForgeInjectTests.ChainB → ForgeInjectTests.ChainC)")
    ) {
      let _: ChainA = try makeChainContainer().resolve()
    }
  }

  @Test("a direct resolution names only the type, as before")
  func direct() {
    #expect(throws: ForgeContainerError.missingFactoryMethod("ForgeInjectTests.ChainC")) {
      let _: ChainC = try makeChainContainer().resolve()
    }
  }

  @Test("a mismatch inside a chain names both types and the chain")
  func mismatchInChain() {
    let container = ForgeContainer()
    container.register { c in ChainB(c: try c.resolve()) }
    container.register { _ in ChainC() as ChainMarker }
    #expect(
      throws: ForgeContainerError.typeMismatch(
        "ForgeInjectTests.ChainC (registered as ForgeInjectTests.ChainMarker; chain: ForgeInjectTests.ChainB → ForgeInjectTests.ChainC)"
      )
    ) {
      let _: ChainB = try container.resolve()
    }
  }

  @Test("@Injectable's message says to register C, the missing type, not A")
  func injectableFix() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ForgeContainer.shared = makeChainContainer()
      _ = ChainScreen()
    }
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(stderr.contains("ChainScreen.a needs ForgeInjectTests.ChainA"))
    #expect(stderr.contains("chain: ForgeInjectTests.ChainA → ForgeInjectTests.ChainB → ForgeInjectTests.ChainC"))
    #expect(stderr.contains("To fix it, register ForgeInjectTests.ChainC exactly as it is resolved"))
    #expect(!beforeBacktrace(stderr).contains("register ForgeInjectTests.ChainA"))
  }

  @Test("a private type is named without the runtime's placeholder for its context")
  func privateTypeName() {
    let container = ForgeContainer()
    container.register { c in PrivateScreen(model: try c.resolve()) }
    #expect(
      throws: ForgeContainerError.missingFactoryMethod(
        "ForgeInjectTests.PrivateModel (chain: ForgeInjectTests.PrivateScreen → ForgeInjectTests.PrivateModel)")
    ) {
      let _: PrivateScreen = try container.resolve()
    }
  }

  @Test("a registration as Any or AnyObject is not taken for the missing type")
  func anyIsNotRelated() {
    let container = ForgeContainer()
    container.register { _ in ChainC() as AnyObject }
    container.register { _ in 1 as Any }
    #expect(throws: ForgeContainerError.missingFactoryMethod("ForgeInjectTests.ChainB")) {
      let _: ChainB = try container.resolve()
    }
  }
}

private struct PrivateModel {}
private struct PrivateScreen { let model: PrivateModel }
