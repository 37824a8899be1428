// swift-tools-version: 6.0
//
// wpexporter — a Prometheus exporter for WinPower G2 UPS management servers.
// One library target per module (see docs/architecture.md), a thin executable,
// a benchmark executable, and one test target per module. No package dependencies.

import PackageDescription

let package = Package(
    name: "wpexporter",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "wpexporter", targets: ["wpexporter"]),
        .library(name: "WPLogging", targets: ["WPLogging"]),
        .library(name: "WPConfig", targets: ["WPConfig"]),
        .library(name: "WPMetrics", targets: ["WPMetrics"]),
        .library(name: "WPStorage", targets: ["WPStorage"]),
        .library(name: "WPEnergy", targets: ["WPEnergy"]),
        .library(name: "WPClient", targets: ["WPClient"]),
        .library(name: "WPServer", targets: ["WPServer"]),
        .library(name: "WPScheduler", targets: ["WPScheduler"]),
        .library(name: "WPCollector", targets: ["WPCollector"]),
        .library(name: "WPSimulator", targets: ["WPSimulator"]),
    ],
    targets: [
        // System zlib (a Swift prerequisite on Linux): gzip for HTTP responses and rotated logs.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),

        .target(name: "WPLogging", dependencies: ["CZlib"]),
        .target(name: "WPConfig"),
        .target(name: "WPMetrics"),
        .target(name: "WPStorage", dependencies: ["WPLogging"]),
        .target(name: "WPEnergy", dependencies: ["WPStorage", "WPLogging"]),
        // libcurl reached through dlopen (no headers at build time): the client's transport for
        // skip_ssl_verify and ca_file, which URLSession cannot do on Linux.
        .target(name: "CCurlShim",
                linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "WPClient", dependencies: ["WPLogging", "CCurlShim"]),
        .target(name: "WPServer", dependencies: ["WPLogging", "CZlib"]),
        .target(name: "WPScheduler", dependencies: ["WPLogging"]),
        .target(name: "WPCollector", dependencies: ["WPClient", "WPEnergy", "WPMetrics", "WPLogging"]),
        .target(name: "WPSimulator", dependencies: ["WPServer", "WPLogging"]),

        .executableTarget(name: "wpexporter", dependencies: allModules),
        .executableTarget(name: "wpbench", dependencies: allModules),

        // Fakes and helpers shared by the test targets; not a product.
        .target(name: "WPTestSupport", dependencies: allModules),

        .testTarget(name: "WPLoggingTests", dependencies: ["WPLogging", "WPTestSupport"]),
        .testTarget(name: "WPConfigTests", dependencies: ["WPConfig", "WPTestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "WPMetricsTests", dependencies: ["WPMetrics", "WPTestSupport"]),
        .testTarget(name: "WPStorageTests", dependencies: ["WPStorage", "WPTestSupport"]),
        .testTarget(name: "WPEnergyTests", dependencies: ["WPEnergy", "WPSimulator", "WPTestSupport"]),
        .testTarget(name: "WPClientTests", dependencies: ["WPClient", "WPSimulator", "WPServer", "WPLogging", "WPTestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "WPServerTests", dependencies: ["WPServer", "WPTestSupport"]),
        .testTarget(name: "WPSchedulerTests", dependencies: ["WPScheduler", "WPTestSupport"]),
        .testTarget(name: "WPCollectorTests", dependencies: ["WPCollector", "WPTestSupport"]),
        .testTarget(name: "WPSimulatorTests", dependencies: ["WPSimulator", "WPClient", "WPServer", "WPTestSupport"]),
        .testTarget(name: "wpexporterTests", dependencies: ["wpexporter", "WPTestSupport"]),
    ]
)

var allModules: [Target.Dependency] {
    ["WPLogging", "WPConfig", "WPMetrics", "WPStorage", "WPEnergy", "WPClient",
     "WPServer", "WPScheduler", "WPCollector", "WPSimulator"]
}

// Strict settings for every Swift target, in one place.
// With CI set (as `.ci/run` runs), warnings are errors.
let strictInCI = Context.environment["CI"] != nil
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    if strictInCI {
        settings.append(.unsafeFlags(["-warnings-as-errors"]))
    }
    target.swiftSettings = settings
}
