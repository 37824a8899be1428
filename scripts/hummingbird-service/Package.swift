// swift-tools-version: 6.0
//
// A Hummingbird 2 service serving a WPMetrics registry on a Hummingbird route, with
// Hummingbird's own request metrics (swift-metrics) routed into the same registry by the
// published WPMetricsBridge. scripts/check-hummingbird.sh builds it against a tag of wpexporter
// and the published integrations (WPEXPORTER_GIT_URL, WPEXPORTER_VERSION,
// WPEXPORTER_INTEGRATIONS as in scripts/consumer-integrations), runs it on loopback with port 0
// and scrapes it.

import PackageDescription

let repository = Context.environment["WPEXPORTER_GIT_URL"] ?? "https://invalid.example/set-WPEXPORTER_GIT_URL.git"
let version = Version(Context.environment["WPEXPORTER_VERSION"] ?? "") ?? "0.0.0"
let integrations = Context.environment["WPEXPORTER_INTEGRATIONS"] ?? "/set-WPEXPORTER_INTEGRATIONS"

let package = Package(
    name: "HummingbirdService",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: repository, .upToNextMinor(from: version)),
        .package(url: "file://\(integrations)/WPMetricsBridge", .upToNextMinor(from: version)),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        .executableTarget(name: "HummingbirdService", dependencies: [
            .product(name: "WPMetrics", package: "wpexporter"),
            .product(name: "WPMetricsBridge", package: "WPMetricsBridge"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
    ]
)
