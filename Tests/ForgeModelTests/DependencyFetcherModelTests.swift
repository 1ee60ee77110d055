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

/// The fetcher a run creates, set once its builder is done. Weak: the
/// fetcher keeps the services, whose closures reach it through this box.
final class FetcherBox: @unchecked Sendable {
  // @unchecked: written once before any service is fetched, then only read.
  weak var fetcher: Fetcher?
}

@Suite("DependencyFetcher against its reference model", .timeLimit(.minutes(5)))
struct DependencyFetcherModelTests {
  @Test("random override sets and fetch sequences agree with the model")
  func agreesWithModel() async {
    await propertyCheck(
      count: modelSequences,
      input: Gen.int(in: 0...7), Gen.int(in: 0...2).array(of: 1...12)
    ) { overrideBits, fetches in
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
        let key = FetcherModel.Key(rawValue: code)!
        let real = fetcher.fetch(services[key]).made
        let expected = model.fetch(key)
        #expect(
          real == expected, "overrides \(overridden), fetch \(key): the fetcher gave \(real), the model \(expected)")
        if real != expected { return }
      }
    }
  }
}
