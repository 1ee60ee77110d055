import ForgeInject

/// A private type whose name another file's private type shares: messages
/// name both `ForgeInjectTests.Namesake`.
private struct Namesake: Sendable {}

/// Resolves this file's `Namesake`, which nothing registers: for a builder
/// declared in another file.
func resolveThisFilesNamesake(_ container: ForgeContainerProtocol) throws {
  let _: Namesake = try container.resolve()
}
