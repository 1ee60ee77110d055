// swift-tools-version: 6.1
import PackageDescription

// Forge's benchmarks, beside the peers they are measured against. A package
// of its own, so the library never depends on the peers or on the harness.
let package = Package(
  name: "ForgeBenchmarks",
  platforms: [.macOS(.v14), .iOS(.v17)],
  products: [
    .executable(name: "forge-instructions", targets: ["ForgeInstructions"])
  ],
  dependencies: [
    .package(name: "Forge", path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
  ],
  targets: [
    // Instruction counts under callgrind and the scaling curve
    // (Scripts/instructions.py); only the Forge modules, no peers. Outside
    // Benchmarks/, where the benchmark plugin takes every target for one
    // of its own.
    .executableTarget(
      name: "ForgeInstructions",
      dependencies: [
        .product(name: "Forge", package: "Forge"),
        .product(name: "ForgeInject", package: "Forge"),
        .product(name: "SwiftPod", package: "Forge"),
        .product(name: "DependencyFetcher", package: "Forge"),
      ],
      path: "Sources/ForgeInstructions",
      // Without LLVM's function merging: scenario functions that differ only
      // in a line number (a hit and a main-actor hit) were merged, and one
      // of them reached through a thunk that passed the difference in a
      // register, which cost its hits up to 8 instructions of the harness's.
      swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-llvm-merge-functions-pass"])]
    ),
    .executableTarget(
      name: "ForgeBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "Forge", package: "Forge"),
        .product(name: "ForgeInject", package: "Forge"),
        .product(name: "SwiftPod", package: "Forge"),
        .product(name: "DependencyFetcher", package: "Forge"),
        .product(name: "Swinject", package: "Swinject"),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ],
      path: "Benchmarks/ForgeBenchmarks",
      // Swinject's container is not Sendable; the harness code shares it
      // with the benchmark closures as its own README does.
      swiftSettings: [.swiftLanguageMode(.v5)],
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ]
)
