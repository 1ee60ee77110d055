import ForgeCore
import PropertyBased
import SwiftPod
import Testing

final class FlowScope: ProviderScope {
  let children: [any ProviderScope] = [StepScope()]
}

final class StepScope: ProviderScope {
  let children: [any ProviderScope] = []
}

/// The reference model of SwiftPod: providers cached by scope, hierarchical
/// clears, overrides cached apart from the original under their own scope
/// or the provider's.
struct SwiftPodModel {
  enum Scope: Int, CaseIterable {
    case singleton, alwaysNew, flow, step
    /// The scopes a clear of this one clears.
    var cleared: Set<Scope> {
      switch self {
      case .singleton, .alwaysNew: []
      case .flow: [.flow, .step]
      case .step: [.step]
      }
    }
  }

  enum Key: Int, CaseIterable, CustomStringConvertible {
    case p1, p2, p3, p4
    var description: String { "p\(rawValue + 1)" }
    var scope: Scope {
      switch self {
      case .p1: .singleton
      case .p2: .alwaysNew
      case .p3: .flow
      case .p4: .step
      }
    }
    var dependencies: [Key] {
      switch self {
      case .p1: [.p2]
      case .p2: [.p3]
      case .p3: []
      case .p4: [.p1, .p3]
      }
    }
  }

  var serial = 0
  var kept: [Key: Made] = [:]
  var overrides: [Key: Scope] = [:]
  var overrideKept: [Key: Made] = [:]

  mutating func make(_ source: String, _ parts: [Made]) -> Made {
    serial += 1
    return Made(source: source, serial: serial, parts: parts)
  }

  mutating func resolve(_ key: Key) -> Made {
    if let scope = overrides[key] {
      if scope == .alwaysNew { return make("override \(key)", []) }
      if let made = overrideKept[key] { return made }
      let made = make("override \(key)", [])
      overrideKept[key] = made
      return made
    }
    if key.scope != .alwaysNew, let made = kept[key] { return made }
    let parts = key.dependencies.map { resolve($0) }
    let made = make("built \(key)", parts)
    if key.scope != .alwaysNew { kept[key] = made }
    return made
  }

  /// A provider made for one resolution, of `p1`'s dependent: built anew
  /// whatever was built before, since it is a dependency of its own.
  mutating func resolveShortLived() -> Made {
    let part = resolve(.p1)
    return make("built short-lived", [part])
  }

  mutating func clear(_ scope: Scope) {
    let cleared = scope.cleared
    kept = kept.filter { !cleared.contains($0.key.scope) }
    overrideKept = overrideKept.filter { !cleared.contains(overrides[$0.key] ?? $0.key.scope) }
  }
}

enum SwiftPodOperation: CustomStringConvertible {
  case resolve(SwiftPodModel.Key)
  case override(SwiftPodModel.Key, scope: SwiftPodModel.Scope?)
  case removeOverride(SwiftPodModel.Key)
  case clear(SwiftPodModel.Scope)
  /// Resolves short-lived providers that read p1 and then go: enough of
  /// them that the pod drops what it kept for them in between.
  case churn

  static let codes = 0...20

  init(_ code: Int) {
    let keys = SwiftPodModel.Key.allCases
    switch code {
    case 0..<4: self = .resolve(keys[code])
    case 4..<8: self = .override(keys[code - 4], scope: nil)
    case 8: self = .override(.p1, scope: .alwaysNew)
    case 9: self = .override(.p2, scope: .flow)
    case 10: self = .override(.p4, scope: .singleton)
    case 11..<15: self = .removeOverride(keys[code - 11])
    case 15: self = .clear(.flow)
    case 16: self = .clear(.step)
    case 17: self = .clear(.singleton)
    case 20: self = .churn
    default: self = .resolve(keys[code - 18 + 2])
    }
  }

  var description: String {
    switch self {
    case .resolve(let key): "resolve \(key)"
    case .override(let key, let scope): "override \(key)\(scope.map { " in \($0)" } ?? "")"
    case .removeOverride(let key): "remove override \(key)"
    case .clear(let scope): "clear \(scope)"
    case .churn: "churn"
    }
  }
}

final class SwiftPodModelRun {
  let pod = SwiftPod()
  let serials = Serials()
  var model = SwiftPodModel()
  let providers: [Provider<Instance>]
  let operations: [SwiftPodOperation]

  init(_ codes: [Int]) {
    operations = codes.map(SwiftPodOperation.init)
    let serials = serials
    let p3 = Provider("p3", scope: FlowScope()) { _ in serials.make("built p3") }
    let p2 = Provider("p2", scope: AlwaysCreateNewScope()) { pod in serials.make("built p2", [pod.resolve(p3)]) }
    let p1 = Provider("p1", scope: SingletonScope()) { pod in serials.make("built p1", [pod.resolve(p2)]) }
    let p4 = Provider("p4", scope: StepScope()) { pod in serials.make("built p4", [pod.resolve(p1), pod.resolve(p3)]) }
    providers = [p1, p2, p3, p4]
  }

  static func scope(_ scope: SwiftPodModel.Scope) -> ProviderScope {
    switch scope {
    case .singleton: SingletonScope()
    case .alwaysNew: AlwaysCreateNewScope()
    case .flow: FlowScope()
    case .step: StepScope()
    }
  }

  /// More than a new pod's table holds before it first looks for gone keys.
  static let churnRounds = 12

  func run() -> String? {
    for (index, operation) in operations.enumerated() {
      switch operation {
      case .resolve(let key):
        let real = pod.resolve(providers[key.rawValue]).made
        let expected = model.resolve(key)
        if real != expected {
          let steps = operations[...index].map(\.description).joined(separator: "; ")
          return "after \(steps): the pod gave \(real), the model \(expected)"
        }
      case .override(let key, let scope):
        let serials = serials
        pod.overrideProvider(
          providers[key.rawValue], with: { _ in serials.make("override \(key)") }, scope: scope.map(Self.scope))
        model.overrides[key] = scope ?? key.scope
        model.overrideKept[key] = nil
      case .removeOverride(let key):
        pod.removeOverrideProvider(providers[key.rawValue])
        model.overrides[key] = nil
        model.overrideKept[key] = nil
      case .clear(let scope):
        pod.clearCachedInstances(forScope: Self.scope(scope))
        model.clear(scope)
      case .churn:
        for round in 0..<Self.churnRounds {
          let p1 = providers[0]
          let serials = serials
          let scope: any ProviderScope = round.isMultiple(of: 2) ? SingletonScope() : FlowScope()
          let shortLived = Provider(scope: scope) { pod in serials.make("built short-lived", [pod.resolve(p1)]) }
          let real = pod.resolve(shortLived).made
          let expected = model.resolveShortLived()
          if real != expected {
            let steps = operations[...index].map(\.description).joined(separator: "; ")
            return "after \(steps) (round \(round)): the pod gave \(real), the model \(expected)"
          }
        }
      }
    }
    return nil
  }
}

@Suite("SwiftPod against its reference model", .timeLimit(.minutes(5)))
struct SwiftPodModelTests {
  @Test("random sequences of resolutions, overrides, scope clears and short-lived providers agree with the model")
  func agreesWithModel() async {
    await propertyCheck(count: modelSequences, input: Gen.int(in: SwiftPodOperation.codes).array(of: 1...24)) { codes in
      let disagreement = SwiftPodModelRun(codes).run()
      #expect(disagreement == nil, "\(disagreement ?? "")")
      await betweenSequences()
    }
  }
}
