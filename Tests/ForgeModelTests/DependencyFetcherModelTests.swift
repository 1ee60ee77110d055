import DependencyFetcher
import PropertyBased
import Testing

/// The reference model of DependencyFetcher: every service made once per
/// fetcher, from its override when the fetcher was created with one.
struct FetcherModel {
  enum Key: Int, CaseIterable, CustomStringConvertible {
    case s1, s2, s3
    var description: String { "s\(rawValue + 1)" }
    var dependencies: [Key] {
      switch self {
      case .s1: [.s2, .s3]
      case .s2: [.s3]
      case .s3: []
      }
    }
  }

  var serial = 0
  var kept: [Key: Made] = [:]
  let overridden: Set<Key>

  mutating func fetch(_ key: Key) -> Made {
    if let made = kept[key] { return made }
    let parts = overridden.contains(key) ? [] : key.dependencies.map { fetch($0) }
    serial += 1
    let made = Made(source: overridden.contains(key) ? "override \(key)" : "made \(key)", serial: serial, parts: parts)
    kept[key] = made
    return made
  }

  /// A service made for one fetch, of `s1`'s dependent: made anew whatever
  /// was made before, since it is a service of its own.
  mutating func fetchShortLived() -> Made {
    let part = fetch(.s1)
    serial += 1
    return Made(source: "made short-lived", serial: serial, parts: [part])
  }
}

/// The services, made with the serials of the run that fetches them.
final class FetcherServices: Sendable {
  let s3: Service<Instance>
  let s2: Service<Instance>
  let s1: Service<Instance>
  let serials: Serials

  init(serials: Serials, fetcher: @escaping @Sendable () -> Fetcher) {
    self.serials = serials
    let s3 = Service("s3") { serials.make("made s3") }
    let s2 = Service("s2") { serials.make("made s2", [fetcher().fetch(s3)]) }
    s1 = Service("s1") { serials.make("made s1", [fetcher().fetch(s2), fetcher().fetch(s3)]) }
    self.s2 = s2
    self.s3 = s3
  }

  subscript(key: FetcherModel.Key) -> Service<Instance> { [s1, s2, s3][key.rawValue] }
}

/// The fetcher a run creates, set once its builder is done. Weak, so that
/// the services' closures, which reach the fetcher through this box, never
/// keep it alive.
final class FetcherBox: @unchecked Sendable {
  // @unchecked: written once before any service is fetched, then only read.
  weak var fetcher: Fetcher?
}

@Suite("DependencyFetcher against its reference model", .timeLimit(.minutes(5)))
struct DependencyFetcherModelTests {
  /// More than a new fetcher's table holds before it first looks for gone
  /// services.
  static let churnRounds = 12

  @Test("random override sets and fetch sequences, with short-lived services, agree with the model")
  func agreesWithModel() async {
    await propertyCheck(
      count: modelSequences,
      // A fetch code of 3 fetches short-lived services that fetch s1, one
      // after another.
      input: Gen.int(in: 0...7), Gen.int(in: 0...3).array(of: 1...12)
    ) { overrideBits, fetches in
      await betweenSequences()
      let box = FetcherBox()
      let serials = Serials()
      let services = FetcherServices(serials: serials) { box.fetcher! }
      let overridden = Set(FetcherModel.Key.allCases.filter { overrideBits & (1 << $0.rawValue) != 0 })
      var builder = Fetcher.create()
      for key in overridden.sorted(by: { $0.rawValue < $1.rawValue }) {
        builder = builder.addOverride(for: services[key], makeService: { serials.make("override \(key)") })
      }
      let fetcher = builder.done()
      box.fetcher = fetcher
      var model = FetcherModel(overridden: overridden)
      for code in fetches {
        guard let key = FetcherModel.Key(rawValue: code) else {
          for round in 0..<Self.churnRounds {
            let s1 = services[.s1]
            let shortLived = Service { serials.make("made short-lived", [box.fetcher!.fetch(s1)]) }
            let real = fetcher.fetch(shortLived).made
            let expected = model.fetchShortLived()
            #expect(
              real == expected,
              "overrides \(overridden), short-lived \(round): the fetcher gave \(real), the model \(expected)")
            if real != expected { return }
          }
          continue
        }
        let real = fetcher.fetch(services[key]).made
        let expected = model.fetch(key)
        #expect(
          real == expected, "overrides \(overridden), fetch \(key): the fetcher gave \(real), the model \(expected)")
        if real != expected { return }
      }
    }
  }
}
