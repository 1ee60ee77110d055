import ForgeInject
import ForgeTestSupport
import Testing

/// Types for one of each problem ForgeInject can have.
enum Broken {
  final class Database: Sendable {}
  /// Needs a Database, which nobody registers.
  final class Repository: Sendable {
    let database: Database
    init(database: Database) { self.database = database }
  }
  protocol Clock: Sendable {}
  final class SystemClock: Clock {}
  /// Needs a Clock, registered only as SystemClock.
  final class Scheduler: Sendable {
    let clock: any Clock
    init(clock: any Clock) { self.clock = clock }
  }
  /// A and B need each other.
  final class A: Sendable { init(_ b: B) {} }
  final class B: Sendable { init(_ a: A) {} }
  struct OpenFailed: Error {}
  /// Its builder throws.
  final class File: Sendable {}
  /// A singleton holding a weak cache: a captive.
  final class Cache: Sendable {}
  final class Store: Sendable {
    let cache: Cache
    init(cache: Cache) { self.cache = cache }
  }

  static func container() -> ForgeContainer {
    let container = ForgeContainer()
    container.register { c in Repository(database: try c.resolve()) }
    container.register(with: .singleton) { _ in SystemClock() }
    container.register { c in Scheduler(clock: try c.resolve()) }
    container.register { c in A(try c.resolve()) }
    container.register { c in B(try c.resolve()) }
    container.register { _ -> File in throw OpenFailed() }
    container.register(with: .weak) { _ in Cache() }
    container.register(with: .singleton) { c in Store(cache: try c.resolve()) }
    return container
  }
}

/// A chain registered from the top down, and a type that needs the chain
/// and a type nobody registers.
enum TopDown {
  final class Leaf: Sendable {}
  final class Middle: Sendable { init(_ leaf: Leaf) {} }
  final class Top: Sendable { init(_ middle: Middle) {} }
  final class Unregistered: Sendable {}
  final class Needy: Sendable { init(_ middle: Middle, _ missing: Unregistered) {} }
  /// Needs what nobody registers: its builder fails.
  final class Broken: Sendable { init(_ missing: Unregistered) {} }
  final class AboveBroken: Sendable { init(_ broken: Broken) {} }

  static let top = "ForgeInjectTests.TopDown.Top"
  static let middle = "ForgeInjectTests.TopDown.Middle"
  static let leaf = "ForgeInjectTests.TopDown.Leaf"
}

@Suite("ForgeInject: validate()", .timeLimit(.minutes(1)))
struct ValidationTests {
  @Test("every registration is checked and every problem reported once, with its chain")
  func broken() {
    let report = Broken.container().validate()
    #expect(report.problems.map(\.id) == [.missing, .typeMismatch, .cycle, .builderFailed, .lifetimeMismatch])
    let missing = report.problems(.missing).first
    #expect(missing?.dependency == "ForgeInjectTests.Broken.Database")
    #expect(missing?.chain == ["ForgeInjectTests.Broken.Repository", "ForgeInjectTests.Broken.Database"])
    #expect(missing?.description.contains("To fix it, register ForgeInjectTests.Broken.Database") == true)
    let mismatch = report.problems(.typeMismatch).first
    #expect(mismatch?.dependency == "ForgeInjectTests.Broken.Clock")
    #expect(mismatch?.description.contains("registered as ForgeInjectTests.Broken.SystemClock") == true)
    #expect(
      report.problems(.cycle).first?.description.contains(
        "Dependency cycle: ForgeInjectTests.Broken.A → ForgeInjectTests.Broken.B → ForgeInjectTests.Broken.A") == true)
    #expect(
      report.problems(.builderFailed).first?.description.contains(
        "Building ForgeInjectTests.Broken.File threw ForgeInjectTests.Broken.OpenFailed()") == true)
    #expect(
      report.problems(.lifetimeMismatch).first?.chain == [
        "ForgeInjectTests.Broken.Store", "ForgeInjectTests.Broken.Cache",
      ])
  }

  @Test("a builder that throws under another's is the one named, with the chain that reached it")
  func nestedBuilderFailure() {
    let container = ForgeContainer()
    container.register { _ -> Broken.File in throw Broken.OpenFailed() }
    container.register { c in Vault(file: try c.resolve()) }
    let report = container.validate()
    let viaVault = report.problems(.builderFailed).first { $0.chain.count > 1 }
    #expect(viaVault?.dependency == "ForgeInjectTests.Broken.File", "\(report)")
    #expect(viaVault?.chain == ["ForgeInjectTests.ValidationTests.Vault", "ForgeInjectTests.Broken.File"])
    #expect(
      viaVault?.description.contains(
        "Building ForgeInjectTests.Broken.File threw ForgeInjectTests.Broken.OpenFailed()") == true)
    #expect(
      viaVault?.description.contains(
        "To fix it, make what builds ForgeInjectTests.Broken.File succeed, or handle the error where") == true)
  }

  /// Holds a file, whose builder throws.
  final class Vault: Sendable {
    let file: Broken.File
    init(file: Broken.File) { self.file = file }
  }

  @Test("the missing type is a red node of its own; what needed it is orange")
  func missingNode() {
    let report = Broken.container().validate()
    let database = report.graph.node(named: "ForgeInjectTests.Broken.Database")
    #expect(database?.status == .failed)
    #expect(report.graph.node(named: "ForgeInjectTests.Broken.Repository")?.status == .affected)
    #expect(
      report.graph.dependents(of: "ForgeInjectTests.Broken.Database").map(\.name) == [
        "ForgeInjectTests.Broken.Repository"
      ])
  }

  @Test("a sound container gives an empty report and keeps no instance of the check")
  func soundAndIsolated() throws {
    let container = ForgeContainer()
    container.register(with: .singleton) { _ in Broken.Database() }
    container.register { c in Broken.Repository(database: try c.resolve()) }
    let database: Broken.Database = try container.resolve()
    let report = container.validate()
    #expect(report.isValid, "\(report)")
    #expect(report.checked == ["ForgeInjectTests.Broken.Database", "ForgeInjectTests.Broken.Repository"])
    // The singleton resolved before is still the one served.
    let again: Broken.Database = try container.resolve()
    #expect(again === database)
  }

  @Test("a registration built while checking one registered before it is not built again")
  func builtOncePerValidation() {
    let top = Counter()
    let middle = Counter()
    let leaf = Counter()
    let container = ForgeContainer()
    container.register { c in
      top.increment()
      return TopDown.Top(try c.resolve())
    }
    container.register(with: .singleton) { c in
      middle.increment()
      return TopDown.Middle(try c.resolve())
    }
    container.register { _ in
      leaf.increment()
      return TopDown.Leaf()
    }
    let report = container.validate()
    #expect(report.isValid, "\(report)")
    #expect(report.checked == [TopDown.top, TopDown.middle, TopDown.leaf])
    // Top's check built Middle and Leaf to the end, so they are not checked
    // again from roots of their own (each was built once per root above it
    // before: 1, 2 and 3 times).
    #expect([top.count, middle.count, leaf.count] == [1, 1, 1])
  }

  @Test("validateAsync() does not build again what an earlier check built either")
  func builtOncePerAsyncValidation() async {
    let middle = Counter()
    let container = ForgeContainer()
    container.register { c in TopDown.Top(try c.resolve()) }
    container.register { c in
      middle.increment()
      return TopDown.Middle(try c.resolve())
    }
    container.register { _ in TopDown.Leaf() }
    let report = await container.validateAsync()
    #expect(report.isValid, "\(report)")
    #expect(report.checked == [TopDown.top, TopDown.middle, TopDown.leaf])
    #expect(middle.count == 1)
  }

  @Test("what a failing check built to the end is not checked again, and the report is the same in any order")
  func failingCheckStillCovers() {
    func register(_ container: ForgeContainer, needyFirst: Bool, middleBuilds: Counter) {
      let needy = { (container: ForgeContainer) in
        container.register { c in TopDown.Needy(try c.resolve(), try c.resolve()) }
      }
      if needyFirst { needy(container) }
      container.register { c in
        middleBuilds.increment()
        return TopDown.Middle(try c.resolve())
      }
      container.register { _ in TopDown.Leaf() }
      if !needyFirst { needy(container) }
    }
    let needyFirst = ForgeContainer()
    let middleBuildsFirst = Counter()
    register(needyFirst, needyFirst: true, middleBuilds: middleBuildsFirst)
    let needyLast = ForgeContainer()
    register(needyLast, needyFirst: false, middleBuilds: Counter())
    let first = needyFirst.validate()
    let last = needyLast.validate()
    // Needy's check built Middle to the end before it failed on what
    // nobody registers: Middle is not checked again.
    #expect(middleBuildsFirst.count == 1)
    #expect(first.problems.map(\.id) == [.missing])
    #expect(first.problems.first?.chain == ["ForgeInjectTests.TopDown.Needy", "ForgeInjectTests.TopDown.Unregistered"])
    #expect(first.problems.map(\.id) == last.problems.map(\.id))
    #expect(first.problems.map(\.chain) == last.problems.map(\.chain))
    #expect(Set(first.checked) == Set(last.checked))
    #expect(Set(first.checked).isSuperset(of: [TopDown.middle, TopDown.leaf]))
  }

  @Test("a registration whose build failed inside another's check is checked from its own root")
  func failedBuildIsCheckedAgain() {
    let broken = Counter()
    let container = ForgeContainer()
    container.register { c in TopDown.AboveBroken(try c.resolve()) }
    container.register { c in
      broken.increment()
      return TopDown.Broken(try c.resolve())
    }
    let report = container.validate()
    // Broken's builder ran in AboveBroken's check and failed, so Broken is
    // checked again on its own, and each check reports its chain.
    #expect(broken.count == 2)
    #expect(
      report.problems.map(\.chain) == [
        [
          "ForgeInjectTests.TopDown.AboveBroken", "ForgeInjectTests.TopDown.Broken",
          "ForgeInjectTests.TopDown.Unregistered",
        ],
        ["ForgeInjectTests.TopDown.Broken", "ForgeInjectTests.TopDown.Unregistered"],
      ])
  }
}
