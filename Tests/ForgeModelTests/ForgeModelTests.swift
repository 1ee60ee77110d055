import Forge
import ForgeCore
import PropertyBased
import Testing

/// The reference model of Forge's documented semantics: layers (scoped
/// override, container-wide override, preview, own factory), lifetimes,
/// instances kept for the innermost scope that overrides something they
/// were built from, resets that clear a lifetime everywhere.
///
/// "Built from" is decided as the engine documents it: by what a build
/// actually used when the key's own factory has never run, and otherwise by
/// the edges its own factory recorded (transitively, through dependencies
/// whose own factory has run, not through one a container-wide override
/// replaces, stopping at one a scope overrides).
struct ForgeModel {
  enum Key: Int, CaseIterable, CustomStringConvertible {
    case t1, t2, s2, c1, s3, c3
    var description: String { ["t1", "t2", "s2", "c1", "s3", "c3"][rawValue] }
    var lifetime: Lifetime {
      switch self {
      case .t2: .transient
      case .c1, .c3: .cached
      default: .singleton
      }
    }
    var dependencies: [Key] {
      switch self {
      case .t1, .s3: []
      case .t2, .s2: [.t1]
      case .c1: [.t2]
      case .c3: [.s2, .s3]
      }
    }
    var hasPreview: Bool { self == .t2 || self == .s2 }
  }

  struct Scope {
    var overrides: Set<Key>
    var kept: [Key: Made] = [:]
  }

  var serial = 0
  var kept: [Key: Made] = [:]
  var containerOverrides: Set<Key> = []
  var scopes: [Scope] = []
  /// Keys whose own factory has run: their edges are known.
  var recorded: Set<Key> = []
  /// The instances of the kept keys made per argument, by id: cached for
  /// an even id, a singleton for an odd one, built from s3, which nothing
  /// overrides.
  var keptPerArgument: [Int: Made] = [:]

  mutating func make(_ source: String, _ parts: [Made] = []) -> Made {
    serial += 1
    return Made(source: source, serial: serial, parts: parts)
  }

  mutating func resolve(_ key: Key, preview: Bool = false) -> Made {
    resolveUsing(key, preview: preview).made
  }

  /// The instance, and the depth of the innermost scope it was served or
  /// built from (0: none).
  mutating func resolveUsing(_ key: Key, preview: Bool) -> (made: Made, depth: Int) {
    if let index = scopes.lastIndex(where: { $0.overrides.contains(key) }) {
      return (make("scope \(index + 1) \(key)"), index + 1)
    }
    if containerOverrides.contains(key) { return (make("container \(key)"), 0) }
    if preview, key.hasPreview { return (make("preview \(key)"), 0) }
    guard key.lifetime.isStored else { return build(key, preview: preview) }
    if recorded.contains(key) {
      let depth = reach(key)
      if depth > 0 {
        if let made = scopes[depth - 1].kept[key] { return (made, depth) }
        let (made, _) = build(key, preview: preview)
        scopes[depth - 1].kept[key] = made
        return (made, depth)
      }
      if let made = kept[key] { return (made, 0) }
    }
    let (made, used) = build(key, preview: preview)
    if used > 0 { scopes[used - 1].kept[key] = made } else { kept[key] = made }
    return (made, used)
  }

  mutating func build(_ key: Key, preview: Bool) -> (made: Made, depth: Int) {
    recorded.insert(key)
    var parts: [Made] = []
    var depth = 0
    for dependency in key.dependencies {
      let (part, used) = resolveUsing(dependency, preview: preview)
      parts.append(part)
      depth = max(depth, used)
    }
    return (make("real \(key)", parts), depth)
  }

  /// The depth of the innermost scope overriding something `key`'s own
  /// factory reads, through the recorded edges.
  func reach(_ key: Key) -> Int {
    var found = 0
    for dependency in key.dependencies {
      if let index = scopes.lastIndex(where: { $0.overrides.contains(dependency) }) {
        found = max(found, index + 1)
      } else if !containerOverrides.contains(dependency), recorded.contains(dependency) {
        found = max(found, reach(dependency))
      }
    }
    return found
  }

  mutating func clear(where matches: (Lifetime) -> Bool) {
    kept = kept.filter { !matches($0.key.lifetime) }
    keptPerArgument = keptPerArgument.filter { !matches($0.key % 2 == 0 ? .cached : .singleton) }
    for index in scopes.indices { scopes[index].kept = scopes[index].kept.filter { !matches($0.key.lifetime) } }
  }
}

final class ModelContainer: Container, @unchecked Sendable {
  let serials = Serials()
  var t1: Instance { provide(.singleton) { self.serials.make("real t1") } }
  var t2: Instance {
    provide(.transient) {
      self.serials.make("real t2", [self.t1])
    } preview: {
      self.serials.make("preview t2")
    }
  }
  var s2: Instance {
    provide(.singleton) {
      self.serials.make("real s2", [self.t1])
    } preview: {
      self.serials.make("preview s2")
    }
  }
  var c1: Instance { provide(.cached) { self.serials.make("real c1", [self.t2]) } }
  var s3: Instance { provide(.singleton) { self.serials.make("real s3") } }
  var c3: Instance { provide(.cached) { self.serials.make("real c3", [self.s2, self.s3]) } }
  /// A transient keyed per argument, which reads t1: enough of these make
  /// the store drop the idle ones (issue 10, item 7), which must change
  /// nothing a read returns.
  func oneOff(_ id: Int) -> Instance {
    provide(.transient, key: "one-off-\(id)") { self.serials.make("one-off", [self.t1]) }
  }
  /// A kept key per argument, which reads s3 (never overridden): cached
  /// for an even id, a singleton for an odd one. A reset that empties it
  /// lets the store drop its slot, which must change nothing a read
  /// returns; one that leaves its instance leaves its slot.
  func keptOneOff(_ id: Int) -> Instance {
    guard id % 2 == 0 else {
      return provide(.singleton, key: "kept-one-off-\(id)") { self.serials.make("kept one-off", [self.s3]) }
    }
    return provide(.cached, key: "kept-one-off-\(id)") { self.serials.make("kept one-off", [self.s3]) }
  }

  // nonisolated(unsafe): never mutated, and key paths are immutable values.
  nonisolated(unsafe) static let keyPaths: [KeyPath<ModelContainer, Instance>] = [\.t1, \.t2, \.s2, \.c1, \.s3, \.c3]

  override init() {
    super.init()
    // Learn every key path's key now: an override's first use of a key
    // path reads it once, which would otherwise count as a build.
    for keyPath in Self.keyPaths {
      override(keyPath) { Instance(Made(source: "discovery", serial: 0, parts: [])) }
      removeOverride(for: keyPath)
    }
  }
}

/// One step of a sequence, decoded from a number so that the property
/// checker can shrink sequences as arrays of integers.
enum ForgeOperation: CustomStringConvertible {
  case read(ForgeModel.Key)
  case readInPreview(ForgeModel.Key)
  case override(ForgeModel.Key)
  case removeOverride(ForgeModel.Key)
  case resetCached
  case resetAll
  case beginScope(overriding: ForgeModel.Key?)
  case endScope
  /// Reads of 70 keys made per argument, from a range of 150 that the
  /// sequence goes round: keys made, asked for again, dropped and made
  /// again.
  case churn
  /// Reads of 20 kept keys made per argument, from a range of 60 that the
  /// sequence goes round: kept, emptied by resets, dropped and made again.
  case keptChurn

  static let codes = 0...24

  init(_ code: Int) {
    let keys = ForgeModel.Key.allCases
    switch code {
    case 0..<6: self = .read(keys[code])
    case 6: self = .readInPreview(.s2)
    case 7: self = .readInPreview(.t2)
    case 8: self = .override(.t1)
    case 9: self = .removeOverride(.t1)
    case 10: self = .override(.s2)
    case 11: self = .removeOverride(.s2)
    case 12: self = .resetCached
    case 13: self = .resetAll
    case 14: self = .beginScope(overriding: .t1)
    case 15: self = .beginScope(overriding: .t2)
    case 16: self = .beginScope(overriding: .s2)
    case 17: self = .beginScope(overriding: .c1)
    case 18: self = .beginScope(overriding: nil)
    case 19, 20: self = .endScope
    case 21: self = .read(.c3)
    case 22: self = .read(.s2)
    case 23: self = .churn
    default: self = .keptChurn
    }
  }

  var description: String {
    switch self {
    case .read(let key): "read \(key)"
    case .readInPreview(let key): "preview read \(key)"
    case .override(let key): "override \(key)"
    case .removeOverride(let key): "remove override \(key)"
    case .resetCached: "resetCached"
    case .resetAll: "resetAll"
    case .beginScope(let key): "withOverrides { \(key.map { "\($0)" } ?? "") } run: {"
    case .endScope: "}"
    case .churn: "70 keys made per argument"
    case .keptChurn: "20 kept keys made per argument"
    }
  }
}

/// Runs `operations` against a real container and the model side by side,
/// and returns the first disagreement.
final class ForgeModelRun {
  let container = ModelContainer()
  var model = ForgeModel()
  let operations: [ForgeOperation]
  var next = 0
  var disagreement: String?
  /// The next per-argument key's id, before the range wraps.
  var nextOneOff = 0
  /// The next kept per-argument key's id, before the range wraps.
  var nextKept = 0

  init(_ codes: [Int]) { operations = codes.map(ForgeOperation.init) }

  func run() -> String? {
    runUntilScopeEnds(depth: 0)
    return disagreement
  }

  private func runUntilScopeEnds(depth: Int) {
    while next < operations.count, disagreement == nil {
      let operation = operations[next]
      next += 1
      switch operation {
      case .read(let key):
        compare(container[keyPath: ModelContainer.keyPaths[key.rawValue]].made, model.resolve(key), operation)
      case .readInPreview(let key):
        let real = Forge.withPreviewMode { container[keyPath: ModelContainer.keyPaths[key.rawValue]].made }
        compare(real, model.resolve(key, preview: true), operation)
      case .override(let key):
        let serials = container.serials
        container.override(ModelContainer.keyPaths[key.rawValue]) { serials.make("container \(key)") }
        model.containerOverrides.insert(key)
      case .removeOverride(let key):
        container.removeOverride(for: ModelContainer.keyPaths[key.rawValue])
        model.containerOverrides.remove(key)
      case .resetCached:
        container.resetCached()
        model.clear { $0 == .cached }
      case .resetAll:
        container.resetAll()
        model.containerOverrides.removeAll()
        model.clear { _ in true }
      case .beginScope(let key):
        let serials = container.serials
        let inner = depth + 1
        model.scopes.append(ForgeModel.Scope(overrides: key.map { [$0] } ?? []))
        container.withOverrides {
          if let key { $0.override(ModelContainer.keyPaths[key.rawValue]) { serials.make("scope \(inner) \(key)") } }
        } run: {
          runUntilScopeEnds(depth: inner)
        }
        model.scopes.removeLast()
      case .endScope:
        if depth > 0 { return }
      case .churn:
        for _ in 0..<70 where disagreement == nil {
          let id = nextOneOff % 150
          nextOneOff += 1
          let part = model.resolve(.t1)
          compare(container.oneOff(id).made, model.make("one-off", [part]), operation)
        }
      case .keptChurn:
        for _ in 0..<20 where disagreement == nil {
          let id = nextKept % 60
          nextKept += 1
          let expected: Made
          if let kept = model.keptPerArgument[id] {
            expected = kept
          } else {
            let part = model.resolve(.s3)
            expected = model.make("kept one-off", [part])
            model.keptPerArgument[id] = expected
          }
          compare(container.keptOneOff(id).made, expected, operation)
        }
      }
    }
  }

  private func compare(_ real: Made, _ expected: Made, _ operation: ForgeOperation) {
    guard real != expected else { return }
    let steps = operations[..<next].map(\.description).joined(separator: "; ")
    disagreement = "after \(steps): the container gave \(real), the model \(expected)"
  }
}

@Suite("Forge against its reference model", .timeLimit(.minutes(5)))
struct ForgeModelTests {
  @Test("random sequences of reads, overrides, nested scopes, previews and resets agree with the model")
  func agreesWithModel() async {
    await propertyCheck(count: modelSequences, input: Gen.int(in: ForgeOperation.codes).array(of: 1...24)) { codes in
      let disagreement = ForgeModelRun(codes).run()
      #expect(disagreement == nil, "\(disagreement ?? "")")
      await betweenSequences()
    }
  }

  @Test("the model catches a known difference: it is not vacuous")
  func modelDetectsDifferences() {
    // A container whose s2 ignores scopes entirely would read the real t1.
    var model = ForgeModel()
    model.scopes.append(ForgeModel.Scope(overrides: [.t1]))
    let made = model.resolve(.s2)
    #expect(made.parts.first?.source == "scope 1 t1")
  }
}
