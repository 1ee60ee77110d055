/// Type names as messages, graphs and strict modes spell them: the fully
/// qualified name, without the runtime's placeholder for a `private` or
/// `fileprivate` declaration's context.
///
/// `String(reflecting:)` renders a type declared `private` in a test file
/// as `MyAppTests.(unknown context at $5612a4c3e0f8).MockNetwork`, with an
/// address that changes from build to build: unreadable in a message, and
/// impossible to name in a strict mode. Here it is `MyAppTests.MockNetwork`.
///
/// ```swift
/// private struct MockNetwork {}
/// TypeName.of(MockNetwork.self)        // "MyAppTests.MockNetwork"
/// TypeName.of([MockNetwork?].self)     // "Swift.Array<Swift.Optional<MyAppTests.MockNetwork>>"
/// ```
package enum TypeName {
  /// `type`'s fully qualified name, readable.
  ///
  /// Rendered once per type and then kept: `String(reflecting:)` of a type
  /// costs thousands of instructions (a validation of three registrations
  /// spent a third of its time there), and a type's name never changes.
  package static func of(_ type: Any.Type) -> String {
    let key = ObjectIdentifier(type)
    if let name = names.withValue({ $0[key] }) { return name }
    // Rendered outside the lock, which is never held while the runtime
    // reflects.
    let name = readable(String(reflecting: type))
    names.withValue { $0[key] = name }
    return name
  }

  /// The names rendered so far. Type metadata lives as long as the
  /// process, so a type's identity is never reused for another type; the
  /// cache grows with the types named, as the runtime's own caches do.
  private static let names = LockedValue<[ObjectIdentifier: String]>([:])

  /// `value` as `String(reflecting:)` renders it (an error, say), with the
  /// private contexts of the types it names left out.
  package static func reflecting(_ value: Any) -> String {
    readable(String(reflecting: value))
  }

  /// `rendered` without its `(unknown context at $…).` placeholders.
  package static func readable(_ rendered: String) -> String {
    // Most names have no parenthesis at all: one pass over the bytes,
    // since a name is rendered wherever a registration or a provider is
    // made (a substring search would cost ten times more).
    guard rendered.utf8.contains(UInt8(ascii: "(")) else { return rendered }
    let marker = "(unknown context at $"
    var result = ""
    var rest = Substring(rendered)
    while let start = rest.firstRange(of: marker),
      // The placeholder ends with its address and `).`; text that does
      // not is kept as it is.
      let end = rest[start.upperBound...].firstRange(of: ").")
    {
      result += rest[..<start.lowerBound]
      rest = rest[end.upperBound...]
    }
    return result + rest
  }
}
