import ForgeInject
import Testing

@Suite("ForgeContainer")
struct ContainerTests {
  let container = ForgeContainer()

  @Test("resolves by inferred type and by explicit type")
  func resolveByType() throws {
    container.register(with: .singleton) { _ in NetworkService(id: 7) as NetworkServiceProtocol }
    let inferred: NetworkServiceProtocol = try container.resolve()
    let explicit = try container.resolveWithType(NetworkServiceProtocol.self)
    #expect(inferred.id == 7)
    #expect(inferred as AnyObject === explicit as AnyObject)
  }

  @Test("register(builder:) is transient")
  func defaultTransient() throws {
    container.register { _ in Widget() }
    let a: Widget = try container.resolve()
    let b: Widget = try container.resolve()
    #expect(a !== b)
  }

  @Test("registration order does not matter; builders resolve nested types")
  func orderAndNesting() throws {
    container.register(with: .singleton) { container in
      let network: NetworkServiceProtocol = try container.resolve()
      return [network.id]
    }
    container.register(with: .singleton) { _ in NetworkService(id: 3) as NetworkServiceProtocol }
    let ids: [Int] = try container.resolve()
    #expect(ids == [3])
  }

  @Test("registering again replaces the factory and drops the kept instance")
  func reRegister() throws {
    container.register(with: .singleton) { _ in Widget("first") }
    let first: Widget = try container.resolve()
    container.register(with: .singleton) { _ in Widget("second") }
    let second: Widget = try container.resolve()
    #expect(first.label == "first")
    #expect(second.label == "second")
  }

  @Test("registering twice before any resolution keeps only the second factory")
  func reRegisterBeforeResolving() throws {
    container.register(with: .singleton) { _ in Widget("first") }
    container.register(with: .singleton) { _ in Widget("second") }
    #expect(try container.resolve() as Widget == container.resolve() as Widget)
    #expect((try container.resolve() as Widget).label == "second")
    #expect(container.registeredTypeNames == ["ForgeInjectTests.Widget"])
  }

  @Test("registered types are listed in registration order, resolved or not")
  func registeredTypeNamesInOrder() throws {
    container.register(with: .singleton) { _ in Widget("w") }
    container.register(with: .transient) { _ in NetworkService() as NetworkServiceProtocol }
    container.register(with: .singleton) { _ in TeardownService() }
    let names = [
      "ForgeInjectTests.Widget", "ForgeInjectTests.NetworkServiceProtocol", "ForgeInjectTests.TeardownService",
    ]
    #expect(container.registeredTypeNames == names)
    _ = try container.resolve() as TeardownService
    _ = try container.resolve() as Widget
    container.register(with: .singleton) { _ in Widget("again") }
    #expect(container.registeredTypeNames == names)
    #expect((try container.resolve() as Widget).label == "again")
  }

  @Test("resolveAll lists kept instances in registration order, not resolution order")
  func resolveAllOrder() throws {
    container.register(with: .singleton) { _ in TeardownService() }
    container.register(with: .singleton) { _ in OtherTeardownService() }
    let second: OtherTeardownService = try container.resolve()
    let first: TeardownService = try container.resolve()
    let all = container.resolveAll(conforming: Serviceable.self)
    #expect(all.map { ObjectIdentifier($0) } == [ObjectIdentifier(first), ObjectIdentifier(second)])
  }

  @Test("weak instances are shared while held and rebuilt after release")
  func weak() throws {
    let builds = Counter()
    container.register(with: .weak) { _ in
      builds.increment()
      return Widget()
    }
    var held: Widget? = try container.resolve() as Widget
    let again: Widget = try container.resolve()
    #expect(again === held)
    _ = consume again
    held = nil
    _ = try container.resolve() as Widget
    #expect(builds.count == 2)
    _ = held
  }

  @Test("resolveAll returns only built singletons and live weak instances")
  func resolveAll() throws {
    container.register(with: .singleton) { _ in TeardownService() }
    container.register(with: .transient) { _ in OtherTeardownService() }
    container.register(with: .singleton) { _ in Widget() }
    #expect(container.resolveAll(conforming: Serviceable.self).isEmpty)
    let built: TeardownService = try container.resolve()
    _ = try container.resolve() as OtherTeardownService
    let all = container.resolveAll(conforming: Serviceable.self)
    #expect(all.count == 1)
    #expect(all.first === built)
  }

  @Test("reset(preserving:) drops kept instances except the preserved, and keeps every factory")
  func reset() throws {
    container.register(with: .singleton) { _ in Widget() }
    container.register(with: .singleton) { _ in NetworkService() as NetworkServiceProtocol }
    let widget: Widget = try container.resolve()
    let network: NetworkServiceProtocol = try container.resolve()
    container.reset(preserving: [NetworkServiceProtocol.self])
    #expect(try container.resolve() as Widget !== widget)
    #expect(try container.resolve() as NetworkServiceProtocol as AnyObject === network as AnyObject)
  }

  @Test("a missing registration names the type in full")
  func missing() {
    let error = #expect(throws: ForgeContainerError.self) { try container.resolve() as Widget }
    #expect(error == .missingFactoryMethod("ForgeInjectTests.Widget"))
    #expect(error?.errorDescription == "Missing factory method for instance: ForgeInjectTests.Widget")
  }

  @Test("registered as a protocol, resolved as the concrete type: a type mismatch naming both (seed 001)")
  func concreteVersusProtocol() {
    container.register(with: .singleton) { _ in NetworkService() as NetworkServiceProtocol }
    #expect(
      throws: ForgeContainerError.typeMismatch(
        "ForgeInjectTests.NetworkService (registered as ForgeInjectTests.NetworkServiceProtocol)")
    ) {
      try container.resolve() as NetworkService
    }
    #expect(container.registeredTypeNames == ["ForgeInjectTests.NetworkServiceProtocol"])
  }

  @Test("a builder's own error propagates unchanged and leaves nothing kept")
  func builderError() throws {
    let fail = Mutex(true)
    container.register(with: .singleton) { _ in
      if fail.withLock({ $0 }) { throw BuilderFailure() }
      return Widget("built")
    }
    #expect(throws: BuilderFailure()) { try container.resolve() as Widget }
    fail.withLock { $0 = false }
    #expect(try container.resolve() as Widget == container.resolve() as Widget)
  }

  @Test("a cycle throws DependencyCycleError with the whole path")
  func cycle() {
    container.register(with: .singleton) { container in [try container.resolve() as Widget] }
    container.register(with: .transient) { container in
      _ = try container.resolve() as [Widget]
      return Widget()
    }
    let error = #expect(throws: DependencyCycleError.self) { try container.resolve() as [Widget] }
    #expect(
      error?.path == [
        "Swift.Array<ForgeInjectTests.Widget>", "ForgeInjectTests.Widget", "Swift.Array<ForgeInjectTests.Widget>",
      ])
  }

  @Test("mainActorBuilder builds at registration, on the main actor")
  @MainActor
  func mainActorBuilder() throws {
    let builds = Counter()
    container.register(
      with: .singleton,
      mainActorBuilder: { _ in
        MainActor.assertIsolated()
        builds.increment()
        return Widget("main")
      })
    #expect(builds.count == 1)
    let widget: Widget = try container.resolve()
    #expect(widget.label == "main")
    #expect(builds.count == 1)
  }

  @Test("mainActorBuilder with .weak: held until handed out, then released once nobody holds it")
  @MainActor
  func mainActorBuilderWeak() throws {
    container.register(with: .weak, mainActorBuilder: { _ in MainObserver() as Observing })
    var held: Observing? = try container.resolve()
    weak let watched = held
    #expect(try container.resolve() as Observing === held)
    held = nil
    #expect(watched == nil)
    let error = #expect(throws: ForgeContainerError.self) { try container.resolve() as Observing }
    let named = "Missing factory method for instance: ForgeInjectTests.Observing (released: "
    #expect(error?.errorDescription?.hasPrefix(named) == true)
    #expect(error?.errorDescription?.contains("registered .weak with a main-actor builder") == true)
    #expect(error?.errorDescription?.contains("register it with .singleton") == true)
  }

  @Test("the documented error cases can be switched over exhaustively")
  func exhaustiveSwitch() {
    func describe(_ error: ForgeContainerError) -> String {
      switch error {
      case .missingFactoryMethod(let type): "missing \(type)"
      case .typeMismatch(let type): "mismatch \(type)"
      }
    }
    #expect(describe(.typeMismatch("T")) == "mismatch T")
    #expect(ForgeContainerError.typeMismatch("T").errorDescription == "Type mismatch when resolving instance: T")
  }

  @Test("releasing a container releases what it kept")
  func release() throws {
    weak var kept: Widget?
    do {
      let local = ForgeContainer()
      local.register(with: .singleton) { _ in Widget() }
      kept = try local.resolve() as Widget
      #expect(kept != nil)
    }
    #expect(kept == nil)
  }

  @Test("a container that built, rebuilt and re-registered is released with its last reference")
  func containerReleased() throws {
    weak var released: ForgeContainer?
    do {
      let local = ForgeContainer()
      released = local
      local.register(with: .singleton) { _ in NetworkService(id: 1) as NetworkServiceProtocol }
      local.register { container in
        Widget("\((try container.resolve() as NetworkServiceProtocol).id)")
      }
      #expect(try local.resolve() as Widget !== local.resolve() as Widget)
      // The first factory is retired; the second one builds.
      local.register(with: .singleton) { _ in NetworkService(id: 2) as NetworkServiceProtocol }
      #expect(try (local.resolve() as Widget).label == "2")
    }
    #expect(released == nil)
  }

  @Test("a builder's container is the container itself, and keeping it keeps the container")
  func builderKeepsContainer() throws {
    final class Keeper: Sendable {
      let container: ForgeContainerProtocol
      init(_ container: ForgeContainerProtocol) { self.container = container }
    }
    weak var released: ForgeContainer?
    var keeper: Keeper?
    do {
      let local = ForgeContainer()
      released = local
      local.register { _ in Widget("kept") }
      // Transient: a singleton keeping its container would be a cycle.
      local.register { container in Keeper(container) }
      keeper = try local.resolve() as Keeper
      #expect(keeper?.container as? ForgeContainer === local)
    }
    // The keeper's reference alone holds the container, which still works.
    #expect(released != nil)
    #expect(try (keeper?.container.resolve() as Widget?)?.label == "kept")
    keeper = nil
    #expect(released == nil)
  }
}

extension Widget: Equatable {
  static func == (lhs: Widget, rhs: Widget) -> Bool { lhs === rhs }
}
