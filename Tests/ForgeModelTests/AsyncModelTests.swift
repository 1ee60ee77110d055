import Forge
import ForgeCore
import PropertyBased
import Testing

/// The reference model of async dependencies, as the engine documents them:
/// a kept async dependency is built once per flight however many tasks ask
/// (they all get its instance, or all get its error), a build that throws
/// keeps nothing, and a reset drops cached instances (a singleton keeps what
/// it was built from).
struct AsyncModel {
  enum Key: Int, CaseIterable, CustomStringConvertible {
    /// a1: async singleton over a2 and s3; a2: async cached over s3; s3: a
    /// synchronous singleton.
    case a1, a2, s3
    var description: String { ["a1", "a2", "s3"][rawValue] }
  }

  /// A failed build, naming the key whose armed build threw.
  struct Failed: Error, Equatable {
    let key: String
  }

  var serial = 0
  var kept: [Key: Made] = [:]
  /// Keys whose next build throws (checked before it reads anything).
  var failing: Set<Key> = []

  mutating func read(_ key: Key) -> Result<Made, Failed> {
    if let made = kept[key] { return .success(made) }
    if failing.remove(key) != nil { return .failure(Failed(key: "\(key)")) }
    var parts: [Made] = []
    switch key {
    case .a1:
      switch read(.a2) {
      case .success(let part): parts = [part]
      case .failure(let error): return .failure(error)
      }
      guard case .success(let s3) = read(.s3) else { return .failure(Failed(key: "s3")) }
      parts.append(s3)
    case .a2:
      guard case .success(let s3) = read(.s3) else { return .failure(Failed(key: "s3")) }
      parts = [s3]
    case .s3:
      break
    }
    serial += 1
    let made = Made(source: "\(key)", serial: serial, parts: parts)
    kept[key] = made
    return .success(made)
  }

  mutating func resetCached() { kept[.a2] = nil }
}

/// The keys whose next build throws, shared with the factories.
final class FailNext: Sendable {
  private let keys = LockedValue<Set<Int>>([])
  func arm(_ key: AsyncModel.Key) { keys.withValue { _ = $0.insert(key.rawValue) } }
  func check(_ key: AsyncModel.Key) throws {
    if keys.withValue({ $0.remove(key.rawValue) != nil }) { throw AsyncModel.Failed(key: "\(key)") }
  }
}

final class AsyncModelContainer: Container, @unchecked Sendable {
  let serials = Serials()
  let failNext = FailNext()

  var a1: AsyncDependency<Instance> {
    provide(.singleton) {
      try self.failNext.check(.a1)
      let a2 = try await self.a2.value
      return self.serials.make("a1", [a2, self.s3])
    }
  }
  var a2: AsyncDependency<Instance> {
    provide(.cached) {
      try self.failNext.check(.a2)
      // Suspends, so that concurrent readers meet the build in flight.
      await Task.yield()
      return self.serials.make("a2", [self.s3])
    }
  }
  var s3: Instance { provide(.singleton) { self.serials.make("s3") } }

  func read(_ key: AsyncModel.Key) async throws -> Instance {
    switch key {
    case .a1: try await a1.value
    case .a2: try await a2.value
    case .s3: s3
    }
  }
}

@Suite("Async dependencies against their reference model", .timeLimit(.minutes(5)))
struct AsyncModelTests {
  @Test("random reads (from 1 to 4 tasks at once), failures and resets agree with the model")
  func agreesWithModel() async {
    await propertyCheck(
      count: modelSequences / 4,
      input: Gen.int(in: 0...19).array(of: 1...14)
    ) { codes in
      let container = AsyncModelContainer()
      var model = AsyncModel()
      var log: [String] = []
      for code in codes {
        let operation = code % 5
        let readers = code / 5 + 1
        switch operation {
        case 0, 1, 2:
          let key = AsyncModel.Key(rawValue: operation)!
          log.append("\(readers)×read \(key)")
          let results = await withTaskGroup(of: Result<Made, AsyncModel.Failed>.self) { group in
            for _ in 0..<readers {
              group.addTask {
                do {
                  return .success(try await container.read(key).made)
                } catch let failed as AsyncModel.Failed {
                  return .failure(failed)
                } catch {
                  return .failure(AsyncModel.Failed(key: "unexpected \(error)"))
                }
              }
            }
            return await group.reduce(into: []) { $0.append($1) }
          }
          // One flight answers every reader that came while it ran. A
          // flight that fails can end before the last readers come: they
          // start the next build, which the model makes as its next read.
          // Each flight's outcome differs from the others' (a failure names
          // the armed key it consumed), so every flight shows in the results.
          var outcomes = [model.read(key)]
          while case .failure = outcomes[outcomes.count - 1], outcomes.count < readers,
            results.contains(where: { !outcomes.contains($0) })
          {
            outcomes.append(model.read(key))
          }
          let agrees = results.allSatisfy { outcomes.contains($0) }
          #expect(agrees, "after \(log.joined(separator: ", ")): the container gave \(results), the model \(outcomes)")
          if !agrees { return }
        case 3:
          let key: AsyncModel.Key = readers % 2 == 0 ? .a1 : .a2
          log.append("fail next \(key)")
          container.failNext.arm(key)
          model.failing.insert(key)
        default:
          log.append("resetCached")
          container.resetCached()
          model.resetCached()
        }
      }
    }
  }
}
