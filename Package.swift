// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Forge",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: [
    .library(name: "ForgeCore", targets: ["ForgeCore"]),
    .library(name: "Forge", targets: ["Forge"]),
    .executable(name: "forge-demo", targets: ["forge-demo"]),
  ],
  targets: [
    // The engine: slots, lifetimes, locking, override layers, cycle detection.
    .target(name: "ForgeCore"),
    // Dialect of seed 000: KeyPath containers.
    .target(name: "Forge", dependencies: ["ForgeCore"]),
    .executableTarget(name: "forge-demo", dependencies: ["Forge"]),
    .testTarget(name: "ForgeCoreTests", dependencies: ["ForgeCore"]),
    .testTarget(name: "ForgeTests", dependencies: ["Forge"]),
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
