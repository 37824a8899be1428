// swift-tools-version: 6.0
//
// WPServiceLifecycle — swift-service-lifecycle `Service`s for WPServer's WPHTTPServer,
// WPScheduler's TickScheduler and WPExporter's Exporter, so they run in a `ServiceGroup` beside NIO-based services and stop
// gracefully with them. A separate package so that wpexporter's own Package.swift keeps no
// dependencies; see README.md.

import PackageDescription

// wpexporter, the package this one extends. In wpexporter's repository: the checkout around
// this package. In the package scripts/export-integrations.sh publishes, these two lines name
// wpexporter's URL and release instead, so a service can depend on both by version (README.md).
let wpexporterDependency: Package.Dependency = .package(name: "wpexporter", path: "../..")
let wpexporterPackage = "wpexporter"

let package = Package(
    name: "WPServiceLifecycle",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WPServiceLifecycle", targets: ["WPServiceLifecycle"]),
    ],
    dependencies: [
        wpexporterDependency,
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "WPServiceLifecycle",
            dependencies: [
                .product(name: "WPScheduler", package: wpexporterPackage),
                .product(name: "WPServer", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "WPExporter", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "WPServiceLifecycleTests",
            dependencies: [
                "WPServiceLifecycle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "WPLogging", package: wpexporterPackage),
                .product(name: "WPExporter", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "WPConfig", package: wpexporterPackage),
                .product(name: "WPExporterTesting", package: wpexporterPackage, condition: .when(platforms: [.linux])),
                .product(name: "WPServer", package: wpexporterPackage, condition: .when(platforms: [.linux])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
