// swift-tools-version: 6.0
//
// A service depending on a tagged release of wpexporter as a source-control dependency, the
// way docs/embedding.md says. scripts/check-consumer.sh builds and tests it with CI=true
// against a bare clone of this repository holding the tag; WPEXPORTER_GIT_URL names that clone
// and WPEXPORTER_VERSION the tag (the version of CHANGELOG.md's latest release).
//
// Its tests read the testing product's simulated WinPower with WPClient and keep the energy with
// WPEnergy on a WPStorage data directory (Linux: those products are Linux-only).
//
// It depends on swift-system too, which every SwiftNIO-based package pulls in: SwiftPM needs
// target names to be unique across a whole package graph, and swift-system has a C target
// named CSystem, so wpexporter's C targets must never take such a name (they are all WP…).

import PackageDescription

let repository = Context.environment["WPEXPORTER_GIT_URL"] ?? "https://invalid.example/set-WPEXPORTER_GIT_URL.git"
let version = Version(Context.environment["WPEXPORTER_VERSION"] ?? "") ?? "0.0.0"

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: repository, .upToNextMinor(from: version)),
        .package(url: "https://github.com/apple/swift-system", exact: "1.8.1"),
    ],
    targets: [
        .target(name: "Consumer", dependencies: [
            .product(name: "WPMetrics", package: "wpexporter"),
            .product(name: "WPLogging", package: "wpexporter"),
            .product(name: "WPScheduler", package: "wpexporter"),
            .product(name: "WPServer", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The WinPower client, the energy store and meter, read and kept the way a service
        // other than the exporter would, against the testing product's simulated WinPower.
        .testTarget(name: "ConsumerTests", dependencies: [
            "Consumer",
            .product(name: "WPClient", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPStorage", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPEnergy", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPRuntime", package: "wpexporter"),
            .product(name: "WPExporterTesting", package: "wpexporter", condition: .when(platforms: [.linux])),
        ]),
    ]
)
