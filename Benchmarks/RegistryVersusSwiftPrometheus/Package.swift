// swift-tools-version: 6.0
//
// RegistryVersusSwiftPrometheus — WPMetrics' registry path against swift-prometheus 2.4.1, in
// one process: labelled increments (label lookup on every update) from 4 threads and from 1,
// and rendering registries of 10,000 and 100,000 series. A separate package so that
// wpexporter's own Package.swift keeps no dependencies; run it with Benchmarks/measure/bench-registry.sh
// (release build). Figures in docs/performance.md.

import PackageDescription

let package = Package(
    name: "RegistryVersusSwiftPrometheus",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wpexporter", path: "../.."),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
    ],
    targets: [
        .executableTarget(
            name: "RegistryVersusSwiftPrometheus",
            dependencies: [
                .product(name: "WPMetrics", package: "wpexporter"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
