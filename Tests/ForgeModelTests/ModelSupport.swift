import ForgeCore
import Testing

/// What a resolution returned, as the reference models and the real
/// containers both describe it: which factory made it (`real s2`,
/// `scope 1 t1`, `preview t2`, …), the build's serial number in the
/// container (builds are numbered in the order they finish), and what it was
/// made of.
struct Made: Hashable, CustomStringConvertible, Sendable {
  let source: String
  let serial: Int
  let parts: [Made]

  var description: String {
    parts.isEmpty ? "\(source)#\(serial)" : "\(source)#\(serial)(\(parts.map(\.description).joined(separator: ", ")))"
  }
}

/// An instance the real containers build: a class, so that "the same
/// instance" is identity, carrying the ``Made`` it stands for.
final class Instance: Sendable {
  let made: Made
  init(_ made: Made) { self.made = made }
}

/// Numbers builds in the order they finish, like the models do.
final class Serials: Sendable {
  private let next = LockedValue(0)
  func make(_ source: String, _ parts: [Instance] = []) -> Instance {
    let serial = next.withValue { value -> Int in
      value += 1
      return value
    }
    return Instance(Made(source: source, serial: serial, parts: parts.map(\.made)))
  }
}

/// How many random operation sequences each model test runs: 2,000 by
/// default, more with `FORGE_MODEL_SEQUENCES=100000 swift test --filter Model`.
let modelSequences: Int = {
  if let raw = Environment.value("FORGE_MODEL_SEQUENCES"), let count = Int(raw), count > 0 { return count }
  return 2_000
}()

/// Lets other tests' tasks run before the next sequence. A property check
/// runs its sequences one after another without suspending: a model test
/// whose sequences do not await would hold its thread (the main actor, for
/// ForgeInject's) from the tests running beside it for the whole check,
/// half a minute under ThreadSanitizer.
func betweenSequences() async { await Task.yield() }

/// The process environment, read without Foundation.
enum Environment {
  static func value(_ name: String) -> String? {
    guard let raw = getenv(name) else { return nil }
    return String(cString: raw)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
