// swift-tools-version: 6.0
//
// UPSModeLog — a front end added to wpexporter from outside its package, through the public seam
// (WPFrontEnd's `FrontEnd` and `FrontEndFactory`, `Exporter.Options.frontEnds`): it logs each
// UPS whose operating mode changed and counts the changes on /metrics. The walk-through of
// docs/front-ends.md ("Adding a front end"). A separate package, as an embedder's would be;
// it depends on this checkout by path.

import PackageDescription

let package = Package(
    name: "FrontEndPlugin",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "UPSModeLog", targets: ["UPSModeLog"]),
    ],
    dependencies: [
        .package(name: "wpexporter", path: "../.."),
    ],
    targets: [
        .target(name: "UPSModeLog", dependencies: [
            .product(name: "WPFrontEnd", package: "wpexporter"),
            .product(name: "WPConfig", package: "wpexporter"),
            .product(name: "WPClient", package: "wpexporter"),
            .product(name: "WPLogging", package: "wpexporter"),
            .product(name: "WPMetrics", package: "wpexporter"),
        ]),
        .testTarget(name: "UPSModeLogTests", dependencies: [
            "UPSModeLog",
            .product(name: "WPExporterTesting", package: "wpexporter"),
            .product(name: "WPExporter", package: "wpexporter"),
            .product(name: "WPConfig", package: "wpexporter"),
            .product(name: "WPFrontEnd", package: "wpexporter"),
            .product(name: "WPLogging", package: "wpexporter"),
            .product(name: "WPRuntime", package: "wpexporter"),
        ]),
    ]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]
}
