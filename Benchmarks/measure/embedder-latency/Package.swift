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

import Foundation
import PackageDescription

let wpexporter = Context.environment["WPEXPORTER_PATH"] ?? "../wpexporter"
// WPServerMetrics was a product of its own until the products became the design's modules; it
// is a module of the WPServer product since, so a revision's manifest says which to name.
let manifestPath = wpexporter.hasPrefix("/") ? wpexporter : Context.packageDirectory + "/" + wpexporter
let manifest = (try? String(contentsOfFile: manifestPath + "/Package.swift", encoding: .utf8)) ?? ""
let serverMetrics = manifest.contains(#".library(name: "WPServerMetrics""#) ? ["WPServerMetrics"] : []
// Revisions before the rename call the server `HTTPServer`; main.swift names it `WPHTTPServer`.
let server = (try? String(contentsOfFile: manifestPath + "/Sources/WPServer/HTTP/HTTPServer.swift", encoding: .utf8)) ?? ""
let oldNames: [SwiftSetting] = server.contains("class WPHTTPServer") ? [] : [.define("WPEXPORTER_OLD_NAMES")]

let package = Package(
    name: "EmbedderLatency",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: wpexporter)],
    targets: [
        .executableTarget(name: "EmbedderLatency", dependencies: [
            .product(name: "WPMetrics", package: "wpexporter"),
            .product(name: "WPServer", package: "wpexporter"),
        ] + serverMetrics.map { .product(name: $0, package: "wpexporter") }, swiftSettings: oldNames),
    ]
)
