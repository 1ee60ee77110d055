// swift-tools-version: 6.2
// 6.2: the engine's async entry points are `nonisolated(nonsending)`, which
// older compilers do not parse; this way they say which version they need.
import CompilerPluginSupport
import PackageDescription

/// CI builds with `FORGE_WARNINGS_AS_ERRORS=1`: every target of ours then
/// treats warnings as errors, except the seed-sample tests, which compile
/// the seed's code as written, in Swift 5 mode: its `static var shared` is an
/// error in Swift 6 mode, and its `try await … withOverrides` with a closure
/// that cannot throw warns, as it must for the `rethrows` shape the original
/// declares.
let strict: [SwiftSetting] =
  Context.environment["FORGE_WARNINGS_AS_ERRORS"] == "1" ? [.unsafeFlags(["-warnings-as-errors"])] : []

let package = Package(
  name: "Forge",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: [
    .library(name: "ForgeCore", targets: ["ForgeCore"]),
    .library(name: "Forge", targets: ["Forge"]),
    .library(name: "ForgeInject", targets: ["ForgeInject"]),
    .library(name: "SwiftPod", targets: ["SwiftPod"]),
    .library(name: "DependencyFetcher", targets: ["DependencyFetcher"]),
    // For test targets only: per-test isolation of containers (a Swift
    // Testing trait, and a function for XCTest).
    .library(name: "ForgeTesting", targets: ["ForgeTesting"]),
    .executable(name: "forge-demo", targets: ["forge-demo"]),
  ],
  dependencies: [
    // Only the macro plugin uses swift-syntax; any 600–603 release works.
    .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
    // Tests only: model-based tests of the engine against a reference model.
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    // Documentation only: `swift package generate-documentation` (CI builds
    // every DocC catalog with it).
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // The engine: slots, lifetimes, locking, override layers, cycle detection.
    .target(name: "ForgeCore", dependencies: ["CForgeAtomics"], swiftSettings: strict),
    // Compiler atomics for the engine's lock-free read path.
    .target(name: "CForgeAtomics"),
    // Dialect of seed 000: KeyPath containers.
    .target(name: "Forge", dependencies: ["ForgeCore"], swiftSettings: strict),
    // Dialect of seeds 001 and 002: the type-keyed container and its macros.
    .target(name: "ForgeInject", dependencies: ["ForgeCore", "ForgeInjectMacros"], swiftSettings: strict),
    .macro(
      name: "ForgeInjectMacros",
      dependencies: [
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
      ],
      swiftSettings: strict
    ),
    // Dialect of seed 004: provider objects with hierarchical scopes.
    .target(name: "SwiftPod", dependencies: ["ForgeCore"], swiftSettings: strict),
    // Dialect of seed 003: Service keys and fetchers.
    .target(name: "DependencyFetcher", dependencies: ["ForgeCore"], swiftSettings: strict),
    .target(name: "ForgeTesting", dependencies: ["ForgeCore", "Forge"], swiftSettings: strict),
    .executableTarget(
      name: "forge-demo", dependencies: ["Forge", "ForgeInject", "SwiftPod", "DependencyFetcher"], swiftSettings: strict
    ),
    // Fixtures shared by the test targets.
    .target(
      name: "ForgeTestSupport", dependencies: ["ForgeCore"], path: "Tests/ForgeTestSupport", swiftSettings: strict),
    .testTarget(name: "ForgeCoreTests", dependencies: ["ForgeCore", "ForgeTestSupport"], swiftSettings: strict),
    .testTarget(name: "ForgeTests", dependencies: ["Forge", "ForgeInject", "ForgeTestSupport"], swiftSettings: strict),
    .testTarget(name: "ForgeInjectTests", dependencies: ["ForgeInject", "ForgeTestSupport"], swiftSettings: strict),
    .testTarget(name: "SwiftPodTests", dependencies: ["SwiftPod", "ForgeTestSupport"], swiftSettings: strict),
    .testTarget(
      name: "DependencyFetcherTests", dependencies: ["DependencyFetcher", "ForgeTestSupport"], swiftSettings: strict),
    .testTarget(
      name: "ForgeTestingTests",
      dependencies: ["ForgeTesting", "Forge", "ForgeInject", "SwiftPod", "DependencyFetcher", "ForgeTestSupport"],
      swiftSettings: strict
    ),
    // Random operation sequences per dialect, against reference models.
    .testTarget(
      name: "ForgeModelTests",
      dependencies: [
        "Forge", "ForgeInject", "SwiftPod", "DependencyFetcher", "ForgeTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "ForgeInjectMacrosTests",
      dependencies: [
        "ForgeInjectMacros",
        .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
      ],
      swiftSettings: strict
    ),
    // The seed's samples, compiled as written. They declare
    // `static var shared = …`, which only Swift 5 language mode accepts.
    .testTarget(
      name: "ForgeSeedSampleTests",
      dependencies: ["Forge"],
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
  ],
  swiftLanguageModes: [.v6]
)
