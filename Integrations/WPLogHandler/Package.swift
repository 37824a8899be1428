// swift-tools-version: 6.0
//
// WPLogHandler — a swift-log LogHandler writing through WPLogging (its sinks, encoders and
// redactor), so libraries that log through swift-log end up in the service's WPLogging output
// with secrets masked. A separate package so that wpexporter's own Package.swift keeps no
// dependencies; see README.md.

import PackageDescription

let package = Package(
    name: "WPLogHandler",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WPLogHandler", targets: ["WPLogHandler"]),
    ],
    dependencies: [
        .package(name: "wpexporter", path: "../.."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    ],
    targets: [
        .target(
            name: "WPLogHandler",
            dependencies: [
                .product(name: "WPLogging", package: "wpexporter"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WPLogHandlerTests",
            dependencies: ["WPLogHandler"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
