// swift-tools-version: 6.0
import PackageDescription

// An example, not part of Forge: a server that shuts its Forge container
// down with swift-service-lifecycle. ForgeCore's "Shutting down" article
// shows this code; CI builds and runs it, so the article stays true.
let package = Package(
  name: "ServerShutdown",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "Forge", path: "../.."),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .executableTarget(
      name: "ServerShutdown",
      dependencies: [
        .product(name: "Forge", package: "Forge"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
