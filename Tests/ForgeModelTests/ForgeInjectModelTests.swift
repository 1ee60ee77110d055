import ForgeInject
import PropertyBased
import Testing

/// A failure, as text both sides can produce.
struct Failure: Error, Equatable, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Tags that make `Tagged<…>` four distinct registered types.
enum TagA {}
enum TagB {}
enum TagC {}
enum TagD {}

/// An instance of one registered type, carrying what it is made of.
final class Tagged<Tag>: Sendable {
  let made: Made
  init(_ made: Made) { self.made = made }
}

/// The reference model of ForgeInject: registrations by type with retain
/// policies, resolution that fails naming the missing type, eager
/// main-actor registrations kept at once, resets, re-registration and
/// `resolveAll`. Weak instances stay only while the test holds them.
struct ForgeInjectModel {
  enum Key: Int, CaseIterable, CustomStringConvertible {
    case a, b, c, d
    var description: String { ["A", "B", "C", "D"][rawValue] }
    var dependencies: [Key] {
      switch self {
      case .a: [.b]
      case .b: [.c]
      case .c, .d: []
      }
    }
  }

  enum Policy: CaseIterable { case transient, singleton, weak }

  struct Registration {
    var policy: Policy
    var eager: Made?
  }

  var serial = 0
  var registrations: [Key: Registration] = [:]
  var order: [Key] = []
  var kept: [Key: Made] = [:]
  var held: Set<Int> = []

  mutating func make(_ source: String, _ parts: [Made]) -> Made {
    serial += 1
    return Made(source: source, serial: serial, parts: parts)
  }

  mutating func register(_ key: Key, _ policy: Policy) {
    if registrations[key] == nil, !order.contains(key) { order.append(key) }
    registrations[key] = Registration(policy: policy, eager: nil)
    kept[key] = nil
  }

  mutating func registerEager(_ key: Key) {
    if registrations[key] == nil, !order.contains(key) { order.append(key) }
    let made = make("eager \(key)", [])
    registrations[key] = Registration(policy: .singleton, eager: made)
    kept[key] = made
  }

  func live(_ key: Key) -> Made? {
    guard let made = kept[key], let registration = registrations[key] else { return nil }
    if registration.policy == .weak, registration.eager == nil, !held.contains(made.serial) { return nil }
    return made
  }

  mutating func resolve(_ key: Key) -> Result<Made, Failure> {
    guard let registration = registrations[key] else { return .failure(Failure("missing \(key)")) }
    if let eager = registration.eager {
      kept[key] = eager
      return .success(eager)
    }
    if registration.policy != .transient, let made = live(key) { return .success(made) }
    var parts: [Made] = []
    for dependency in key.dependencies {
      switch resolve(dependency) {
      case .success(let part): parts.append(part)
      case .failure(let error): return .failure(error)
      }
    }
    let made = make("built \(key)", parts)
    if registration.policy != .transient { kept[key] = made }
    return .success(made)
  }

  mutating func reset(preserving: Set<Key>) {
    kept = kept.filter { preserving.contains($0.key) }
  }

  func all() -> [Int] { order.compactMap { live($0)?.serial } }
}

enum ForgeInjectOperation: CustomStringConvertible {
  case register(ForgeInjectModel.Key, ForgeInjectModel.Policy)
  case registerEager(ForgeInjectModel.Key)
  case resolve(ForgeInjectModel.Key)
  case resolveAndHold(ForgeInjectModel.Key)
  case releaseHeld
  case reset(preservingA: Bool)
  case resolveAll

  static let codes = 0...25

  init(_ code: Int) {
    let keys = ForgeInjectModel.Key.allCases
    let policies = ForgeInjectModel.Policy.allCases
    switch code {
    case 0..<12: self = .register(keys[code / 3], policies[code % 3])
    case 12..<16: self = .resolve(keys[code - 12])
    case 16..<20: self = .resolveAndHold(keys[code - 16])
    case 20: self = .releaseHeld
    case 21: self = .reset(preservingA: false)
    case 22: self = .reset(preservingA: true)
    case 23: self = .resolveAll
    case 24: self = .registerEager(.d)
    default: self = .registerEager(.c)
    }
  }

  var description: String {
    switch self {
    case .register(let key, let policy): "register \(key) .\(policy)"
    case .registerEager(let key): "register \(key) mainActorBuilder"
    case .resolve(let key): "resolve \(key)"
    case .resolveAndHold(let key): "resolve and hold \(key)"
    case .releaseHeld: "release held"
    case .reset(let preservingA): preservingA ? "reset(preserving: [A])" : "reset(preserving: [])"
    case .resolveAll: "resolveAll"
    }
  }
}

@MainActor
final class ForgeInjectModelRun {
  let container = ForgeContainer()
  let serials = Serials()
  var model = ForgeInjectModel()
  var held: [AnyObject] = []
  let operations: [ForgeInjectOperation]

  init(_ codes: [Int]) { operations = codes.map(ForgeInjectOperation.init) }

  func run() -> String? {
    for (index, operation) in operations.enumerated() {
      if let difference = step(operation) {
        let steps = operations[...index].map(\.description).joined(separator: "; ")
        return "after \(steps): \(difference)"
      }
    }
    return nil
  }

  private func step(_ operation: ForgeInjectOperation) -> String? {
    switch operation {
    case .register(let key, let policy):
      register(key, policy)
      model.register(key, policy)
    case .registerEager(let key):
      let serials = serials
      switch key {
      case .c:
        container.register(with: .singleton, mainActorBuilder: { _ in Tagged<TagC>(serials.make("eager C").made) })
      default:
        container.register(with: .singleton, mainActorBuilder: { _ in Tagged<TagD>(serials.make("eager D").made) })
      }
      model.registerEager(key)
    case .resolve(let key):
      return compare(resolve(key, hold: false), model.resolve(key))
    case .resolveAndHold(let key):
      let expected = model.resolve(key)
      if case .success(let made) = expected { model.held.insert(made.serial) }
      return compare(resolve(key, hold: true), expected)
    case .releaseHeld:
      held.removeAll()
      model.held.removeAll()
    case .reset(let preservingA):
      container.reset(preserving: preservingA ? [Tagged<TagA>.self] : [])
      model.reset(preserving: preservingA ? [.a] : [])
    case .resolveAll:
      let real = container.resolveAll(conforming: AnyObject.self).compactMap(serial(of:))
      let expected = model.all()
      if real != expected { return "resolveAll gave \(real), the model \(expected)" }
    }
    return nil
  }

  private func compare(_ real: Result<Made, Failure>, _ expected: Result<Made, Failure>) -> String? {
    real == expected ? nil : "the container gave \(real), the model \(expected)"
  }

  private func serial(of object: Any) -> Int? {
    switch object {
    case let tagged as Tagged<TagA>: tagged.made.serial
    case let tagged as Tagged<TagB>: tagged.made.serial
    case let tagged as Tagged<TagC>: tagged.made.serial
    case let tagged as Tagged<TagD>: tagged.made.serial
    default: nil
    }
  }

  private func register(_ key: ForgeInjectModel.Key, _ policy: ForgeInjectModel.Policy) {
    let retain: ForgeRetainPolicy =
      switch policy {
      case .transient: .transient
      case .singleton: .singleton
      case .weak: .weak
      }
    let serials = serials
    switch key {
    case .a:
      container.register(with: retain) { c in
        let b: Tagged<TagB> = try c.resolve()
        return Tagged<TagA>(serials.make("built A", [Instance(b.made)]).made)
      }
    case .b:
      container.register(with: retain) { c in
        let part: Tagged<TagC> = try c.resolve()
        return Tagged<TagB>(serials.make("built B", [Instance(part.made)]).made)
      }
    case .c: container.register(with: retain) { _ in Tagged<TagC>(serials.make("built C").made) }
    case .d: container.register(with: retain) { _ in Tagged<TagD>(serials.make("built D").made) }
    }
  }

  /// Resolves `key`; keeps the instance only when asked to hold it, so a
  /// weak instance lives exactly as long as the model says.
  private func resolve(_ key: ForgeInjectModel.Key, hold: Bool) -> Result<Made, Failure> {
    do {
      let object: AnyObject
      switch key {
      case .a: object = try container.resolve() as Tagged<TagA>
      case .b: object = try container.resolve() as Tagged<TagB>
      case .c: object = try container.resolve() as Tagged<TagC>
      case .d: object = try container.resolve() as Tagged<TagD>
      }
      if hold { held.append(object) }
      return .success(made(of: object))
    } catch ForgeContainerError.missingFactoryMethod(let name) {
      // The name, then " (chain: …)" when the failure was inside a build.
      let type = name.prefix { $0 != " " }
      let missing = ["A", "B", "C", "D"].first { type.hasSuffix("Tag\($0)>") } ?? name
      return .failure(Failure("missing \(missing)"))
    } catch {
      return .failure(Failure("\(error)"))
    }
  }

  private func made(of object: AnyObject) -> Made {
    switch object {
    case let tagged as Tagged<TagA>: tagged.made
    case let tagged as Tagged<TagB>: tagged.made
    case let tagged as Tagged<TagC>: tagged.made
    default: (object as! Tagged<TagD>).made
    }
  }
}

@Suite("ForgeInject against its reference model", .timeLimit(.minutes(5)))
struct ForgeInjectModelTests {
  @Test("random sequences of registrations, resolutions, holds, resets and resolveAll agree with the model")
  @MainActor
  func agreesWithModel() async {
    await propertyCheck(count: modelSequences, input: Gen.int(in: ForgeInjectOperation.codes).array(of: 1...24)) {
      codes in
      let disagreement = ForgeInjectModelRun(codes).run()
      #expect(disagreement == nil, "\(disagreement ?? "")")
      await betweenSequences()
    }
  }
}
