// swift-tools-version: 6.0
//
// WPLogHandler — a swift-log LogHandler writing through WPLogging (its sinks, encoders and
// redactor), so libraries that log through swift-log end up in the service's WPLogging output
// with secrets masked. A separate package so that wpexporter's own Package.swift keeps no
// dependencies; see README.md.

import PackageDescription

// wpexporter, the package this one extends. In wpexporter's repository: the checkout around
// this package. In the package scripts/export-integrations.sh publishes, these two lines name
// wpexporter's URL and release instead, so a service can depend on both by version (README.md).
let wpexporterDependency: Package.Dependency = .package(name: "wpexporter", path: "../..")
let wpexporterPackage = "wpexporter"

let package = Package(
    name: "WPLogHandler",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WPLogHandler", targets: ["WPLogHandler"]),
    ],
    dependencies: [
        wpexporterDependency,
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    ],
    targets: [
        .target(
            name: "WPLogHandler",
            dependencies: [
                .product(name: "WPLogging", package: wpexporterPackage),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WPLogHandlerTests",
            // WPExporter (Linux) and WPConfig: the README's listing of an exporter logging
            // through `.swiftLog(logger)` is compiled in DocSnippets.swift.
            dependencies: ["WPLogHandler", .product(name: "WPConfig", package: wpexporterPackage),
                           .product(name: "WPExporter", package: wpexporterPackage, condition: .when(platforms: [.linux]))]
        ),
    ],
    swiftLanguageModes: [.v6]
)
