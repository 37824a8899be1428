// swift-tools-version: 6.0
//
// A service depending on a tagged release of wpexporter and on the published integrations
// (WPMetricsBridge, WPLogHandler, WPServiceLifecycle) by version, the way docs/embedding.md
// says. scripts/check-consumer.sh publishes the integrations with scripts/export-integrations.sh
// into a temporary directory and builds and tests this package with CI=true:
// WPEXPORTER_GIT_URL names the bare clone of this repository, WPEXPORTER_VERSION the tag, and
// WPEXPORTER_INTEGRATIONS the directory holding one repository per integration.

import PackageDescription

let repository = Context.environment["WPEXPORTER_GIT_URL"] ?? "https://invalid.example/set-WPEXPORTER_GIT_URL.git"
let version = Version(Context.environment["WPEXPORTER_VERSION"] ?? "") ?? "0.0.0"
let integrations = Context.environment["WPEXPORTER_INTEGRATIONS"] ?? "/set-WPEXPORTER_INTEGRATIONS"

let package = Package(
    name: "IntegrationsConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: repository, .upToNextMinor(from: version)),
        .package(url: "file://\(integrations)/WPMetricsBridge", .upToNextMinor(from: version)),
        .package(url: "file://\(integrations)/WPLogHandler", .upToNextMinor(from: version)),
        .package(url: "file://\(integrations)/WPServiceLifecycle", .upToNextMinor(from: version)),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(name: "IntegrationsConsumer", dependencies: [
            .product(name: "WPMetrics", package: "wpexporter"),
            .product(name: "WPLogging", package: "wpexporter"),
            .product(name: "WPScheduler", package: "wpexporter"),
            .product(name: "WPServer", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPConfig", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPExporter", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPMetricsBridge", package: "WPMetricsBridge"),
            .product(name: "WPLogHandler", package: "WPLogHandler"),
            .product(name: "WPServiceLifecycle", package: "WPServiceLifecycle"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "IntegrationsConsumerTests", dependencies: [
            "IntegrationsConsumer",
            .product(name: "WPConfig", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPExporter", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPServer", package: "wpexporter", condition: .when(platforms: [.linux])),
            .product(name: "WPExporterTesting", package: "wpexporter", condition: .when(platforms: [.linux])),
        ]),
    ]
)
