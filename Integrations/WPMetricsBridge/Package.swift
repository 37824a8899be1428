// swift-tools-version: 6.0
//
// WPMetricsBridge — a swift-metrics backend (MetricsFactory) backed by a WPMetrics registry, so
// libraries that measure through swift-metrics (NIO, AsyncHTTPClient, Hummingbird, Vapor…)
// appear on a WPMetrics `/metrics` page. A separate package so that wpexporter's own
// Package.swift keeps no dependencies; see README.md.

import PackageDescription

// wpexporter, the package this one extends. In wpexporter's repository: the checkout around
// this package. In the package scripts/export-integrations.sh publishes, these two lines name
// wpexporter's URL and release instead, so a service can depend on both by version (README.md).
let wpexporterDependency: Package.Dependency = .package(name: "wpexporter", path: "../..")
let wpexporterPackage = "wpexporter"

/// A library of the root package (wpexporter), by product name.
func wpexporter(_ product: String) -> Target.Dependency {
    .product(name: product, package: wpexporterPackage)
}

let package = Package(
    name: "WPMetricsBridge",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WPMetricsBridge", targets: ["WPMetricsBridge"]),
        .executable(name: "MetricsBridgeExample", targets: ["MetricsBridgeExample"]),
    ],
    dependencies: [
        wpexporterDependency,
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "WPMetricsBridge",
            dependencies: [
                wpexporter("WPMetrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // A stand-in for a third-party library: it knows swift-metrics only.
        .target(
            name: "ConnectionPool",
            dependencies: [.product(name: "Metrics", package: "swift-metrics")]
        ),
        // ConnectionPool's metrics on a WPServer /metrics page (Linux only, as WPServer).
        .executableTarget(
            name: "MetricsBridgeExample",
            dependencies: ["ConnectionPool", "WPMetricsBridge", .product(name: "Metrics", package: "swift-metrics")]
                + ["WPLogging", "WPMetrics", "WPServer"].map(wpexporter)
        ),
        .testTarget(
            name: "WPMetricsBridgeTests",
            dependencies: ["ConnectionPool", "WPMetricsBridge", .product(name: "Metrics", package: "swift-metrics")]
                + ["WPLogging", "WPMetrics", "WPServer"].map(wpexporter)
                + [.product(name: "WPExporterTesting", package: wpexporterPackage, condition: .when(platforms: [.linux]))]
        ),
    ],
    swiftLanguageModes: [.v6]
)
