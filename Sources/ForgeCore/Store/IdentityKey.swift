/// A slot key that is an object's identity, for dialects whose keys are
/// objects (SwiftPod's providers, DependencyFetcher's services).
///
/// The key holds the object, so the object lives as long as the store that
/// uses it as a key: an address can never be reused by another object and
/// find the first one's slot.
package struct IdentityKey: Hashable, Sendable {
  package let object: any AnyObject & Sendable

  package init(_ object: any AnyObject & Sendable) { self.object = object }

  package static func == (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs.object === rhs.object }
  package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }
}
