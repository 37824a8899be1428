// swift-tools-version: 6.0
//
// A service depending on a tagged release of wpexporter as a source-control dependency, the
// way docs/embedding.md says. scripts/check-consumer.sh builds and tests it with CI=true
// against a bare clone of this repository holding the tag; WPEXPORTER_GIT_URL names that clone
// and WPEXPORTER_VERSION the tag (the version of CHANGELOG.md's latest release).

import PackageDescription

let repository = Context.environment["WPEXPORTER_GIT_URL"] ?? "https://invalid.example/set-WPEXPORTER_GIT_URL.git"
let version = Version(Context.environment["WPEXPORTER_VERSION"] ?? "") ?? "0.0.0"

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: repository, from: version),
    ],
    targets: [
        .target(name: "Consumer", dependencies: [
            .product(name: "WPMetrics", package: "wpexporter"),
            .product(name: "WPLogging", package: "wpexporter"),
            .product(name: "WPScheduler", package: "wpexporter"),
            .product(name: "WPServer", package: "wpexporter", condition: .when(platforms: [.linux])),
        ]),
        .testTarget(name: "ConsumerTests", dependencies: ["Consumer"]),
    ]
)
