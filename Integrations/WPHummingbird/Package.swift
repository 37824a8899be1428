// swift-tools-version: 6.0
//
// WPHummingbird — mounts wpexporter's HTTP handlers (the whole exporter's endpoints, or any
// WPServer `HTTPHandler`) on a Hummingbird 2 router, with the exporter's content negotiation and
// gzip. A separate package so that wpexporter's own Package.swift keeps no dependencies; see
// README.md.

import PackageDescription

// wpexporter, the package this one extends. In wpexporter's repository: the checkout around
// this package. In the package scripts/export-integrations.sh publishes, these two lines name
// wpexporter's URL and release instead, so a service can depend on both by version (README.md).
let wpexporterDependency: Package.Dependency = .package(name: "wpexporter", path: "../..")
let wpexporterPackage = "wpexporter"

let package = Package(
    name: "WPHummingbird",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WPHummingbird", targets: ["WPHummingbird"]),
        .executable(name: "ExporterOnHummingbird", targets: ["ExporterOnHummingbird"]),
    ],
    dependencies: [
        wpexporterDependency,
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "WPHummingbird",
            dependencies: [
                .product(name: "WPServer", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The example service: Hummingbird, swift-log, swift-metrics and the whole exporter in
        // one file, every type name unqualified.
        .executableTarget(
            name: "ExporterOnHummingbird",
            dependencies: [
                "WPHummingbird",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "WPExporter", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "WPConfig", package: wpexporterPackage),
                .product(name: "WPLogging", package: wpexporterPackage),
                .product(name: "WPMetrics", package: wpexporterPackage),
                .product(name: "WPServer", package: wpexporterPackage, condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(
            name: "WPHummingbirdTests",
            dependencies: [
                "WPHummingbird",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "WPExporter", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "WPConfig", package: wpexporterPackage),
                .product(name: "WPLogging", package: wpexporterPackage),
                .product(name: "WPServer", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "WPExporterTesting", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "WPMetrics", package: wpexporterPackage),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
