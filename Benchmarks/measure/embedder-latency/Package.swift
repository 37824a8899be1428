// swift-tools-version: 6.0
//
// An embedder's HTTP server for Benchmarks/measure/runtime-figures.sh: WPServer's WPHTTPServer with its
// default configuration serving a 10,000-series WPMetrics registry through MetricsHandler
// (rendered on every request) beside a route answering a constant body, so the second route's
// latency can be measured while /metrics renders.
//
// It depends on wpexporter by path. Benchmarks/measure/runtime-figures.sh copies this directory beside
// each revision's checkout (`<dir>/wpexporter`), so the default path builds it against that
// revision; WPEXPORTER_PATH names another checkout (its directory must be named wpexporter,
// which is the package identity SwiftPM derives from the path).

import PackageDescription

let wpexporter = Context.environment["WPEXPORTER_PATH"] ?? "../wpexporter"

let package = Package(
    name: "EmbedderLatency",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: wpexporter)],
    targets: [
        .executableTarget(name: "EmbedderLatency", dependencies: [
            .product(name: "WPMetrics", package: "wpexporter"),
            .product(name: "WPServer", package: "wpexporter"),
            .product(name: "WPServerMetrics", package: "wpexporter"),
        ]),
    ]
)
