// swift-tools-version: 6.0
//
// A service embedding the whole exporter, for Benchmarks/measure/compile-time.sh: what an
// embedder's cold build and incremental build cost. It depends on wpexporter by path;
// compile-time.sh copies this directory beside each revision's checkout (`<dir>/wpexporter`).

import PackageDescription

let package = Package(
    name: "WinPowerService",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: Context.environment["WPEXPORTER_PATH"] ?? "../wpexporter")],
    targets: [
        .executableTarget(name: "WinPowerService", dependencies: [
            .product(name: "WPExporter", package: "wpexporter"),
            .product(name: "WPConfig", package: "wpexporter"),
            .product(name: "WPLogging", package: "wpexporter"),
        ]),
    ]
)
