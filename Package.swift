// swift-tools-version: 6.0
//
// wpexporter — a Prometheus exporter for WinPower G2 UPS management servers.
// One library target per module (see docs/architecture.md), a thin executable,
// a benchmark executable, and one test target per module. No package dependencies.
//
// Platforms: WPServer (epoll, Glibc) and WPServerMetrics, the exporter and the libraries only it uses (WPClient,
// WPCollector, WPSimulator, WPStorage, WPEnergy, WPConfig) are Linux-only; WPMetrics,
// WPLogging, WPScheduler, WPProcess and WPHTTPClient are written for Linux and macOS 15 (Darwin code paths;
// CI builds them on Linux only).
// docs/api-stability.md says what each library promises.

import PackageDescription
import Foundation

let package = Package(
    name: "wpexporter",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "wpexporter", targets: ["wpexporter"]),
        // The products are the modules docs/architecture.md lists ("Products"), each exactly
        // what docs/api-stability.md promises; a product may hold a companion target (WPServer:
        // its request metrics; the testing product: the simulated WinPower). The Pushgateway
        // client is a product of its own, so a service that only exposes metrics links no HTTP
        // client and no Foundation. The front-end seam (WPFrontEnd) is a product, so a service
        // or an Integrations/ package adds front ends; POSIX files, text, time, bytes,
        // compression, the HTTP client, the NUT and SNMP codecs and the built-in front ends are
        // `package`: internals, no products.
        .library(name: "WPRuntime", targets: ["WPRuntime"]),
        .library(name: "WPLogging", targets: ["WPLogging"]),
        .library(name: "WPWallClock", targets: ["WPWallClock"]),
        .library(name: "WPConfig", targets: ["WPConfig"]),
        .library(name: "WPMetrics", targets: ["WPMetrics"]),
        .library(name: "WPPushgateway", targets: ["WPPushgateway"]),
        .library(name: "WPStorage", targets: ["WPStorage"]),
        .library(name: "WPEnergy", targets: ["WPEnergy"]),
        .library(name: "WPClient", targets: ["WPClient"]),
        .library(name: "WPServer", targets: ["WPServer", "WPServerMetrics"]),
        .library(name: "WPScheduler", targets: ["WPScheduler"]),
        .library(name: "WPCollector", targets: ["WPCollector"]),
        .library(name: "WPProcess", targets: ["WPProcess"]),
        .library(name: "WPFrontEnd", targets: ["WPFrontEnd"]),
        .library(name: "WPExporter", targets: ["WPExporter"]),
        .library(name: "WPExporterTesting", targets: ["WPExporterTesting", "WPSimulator"]),
    ],
    targets: [
        // System zlib (a Swift prerequisite on Linux), reached only through WPCompression.
        .systemLibrary(name: "WPCZlib", path: "Sources/WPCZlib"),
        // gzip, deflate chunks and CRC-32 over zlib: HTTP responses, the pre-compressed
        // exposition, rotated logs, the state file's checksum.
        .target(name: "WPCompression", dependencies: ["WPCZlib"]),
        // Linux system calls Swift does not import conveniently (epoll, accept4, MSG_NOSIGNAL,
        // setrlimit).
        .target(name: "WPCSystem", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),

        // The runtime underneath: named threads, the condition variable with a deadline, the
        // monotonic deadline, the worker queue, the test clock (docs/architecture.md, "Threads").
        .target(name: "WPRuntime", dependencies: ["WPPOSIX"]),
        // Internals, no products: POSIX files (read, write, fsync, rename, directory sync),
        // directories and error texts; text (trimming, display text, ASCII and pinyin, percent
        // encoding, HTML and JSON escaping); time (civil dates, time zone rules).
        .target(name: "WPPOSIX"),
        .target(name: "WPText"),
        .target(name: "WPTime", dependencies: ["WPPOSIX"]),
        .target(name: "WPLogging", dependencies: ["WPRuntime", "WPCompression", "WPPOSIX", "WPText", "WPTime"]),
        .target(name: "WPConfig", dependencies: ["WPRuntime", "WPPOSIX", "WPText", "WPTime"]),
        // WPHTTPClient: see docs/architecture.md (deviations) for why WPMetrics depends on it.
        .target(name: "WPMetrics", dependencies: ["WPRuntime", "WPPOSIX", "WPText"]),
        // The Pushgateway client: WPMetrics' families pushed over WPHTTPClient.
        .target(name: "WPPushgateway", dependencies: ["WPRuntime", "WPMetrics", "WPHTTPClient", "WPText"]),
        // The time of day the libraries read (the system's, or a test's following its manual
        // clock): one value passed down from the exporter's options.
        .target(name: "WPWallClock", dependencies: ["WPLogging", "WPRuntime"]),
        .target(name: "WPStorage", dependencies: ["WPWallClock", "WPRuntime", "WPLogging", "WPCompression", "WPPOSIX", "WPText", "WPTime"]),
        .target(name: "WPEnergy", dependencies: ["WPRuntime", "WPStorage", "WPLogging", "WPTime"]),
        // libcurl reached through dlopen (no headers at build time): https:// for WPHTTPClient,
        // loaded only when an https request is made.
        .target(name: "WPCCurlShim",
                linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // libsqlite3 reached through dlopen (no headers at build time): the history database.
        .target(name: "WPCSQLiteShim",
                linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // History and events in one SQLite database of the data directory (docs/storage.md).
        .target(name: "WPHistory", dependencies: ["WPWallClock", "WPCSQLiteShim", "WPFrontEnd", "WPConfig", "WPLogging", "WPMetrics", "WPRuntime",
                                                   "WPClient", "WPCollector", "WPEnergy", "WPTime"]),
        // MQTT 3.1.1: the packets a publisher sends and reads, and a client on a thread of its own.
        .target(name: "WPMQTT", dependencies: ["WPCSystem", "WPHTTPClient", "WPLogging", "WPRuntime"]),
        // Every UPS to an MQTT broker with Home Assistant discovery (`mqtt.*`).
        .target(name: "WPMQTTFrontEnd", dependencies: ["WPWallClock", "WPMQTT", "WPHTTPClient", "WPFrontEnd", "WPConfig", "WPClient", "WPCollector", "WPLogging", "WPMetrics",
                                                       "WPEnergy"]),
        // Notifications of the journal's events to chat robots, webhooks and status tools.
        .target(name: "WPNotifications", dependencies: ["WPWallClock", "WPCrypto", "WPHTTPClient", "WPHistory", "WPLogging", "WPRuntime",
                                                         "WPConfig", "WPFrontEnd", "WPMetrics", "WPClient", "WPCollector",
                                                         "WPStorage", "WPText", "WPTime"]),
        // HTTP/1.1 client without Foundation: POSIX sockets for http://, libcurl for https://;
        // TLS over its sockets (OpenSSL) for clients of other protocols (MQTT's mqtts://).
        .target(name: "WPHTTPClient", dependencies: ["WPRuntime", "WPCCurlShim", "WPCSecurityShim", "WPPOSIX"]),
        .target(name: "WPClient", dependencies: ["WPWallClock", "WPRuntime", "WPLogging", "WPHTTPClient", "WPText", "WPTime"]),
        // OpenSSL and libcrypt reached through dlopen (no headers at build time): the TLS
        // listener and bcrypt basic authentication of the web configuration file, the MQTT
        // client's TLS.
        .target(name: "WPCSecurityShim",
                linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Linux only: the event loop is epoll (WPCSystem) and the sources import Glibc.
        .target(name: "WPCrypto", dependencies: ["WPCSecurityShim"]),
        .target(name: "WPServer", dependencies: ["WPRuntime", "WPLogging", "WPBytes", "WPCompression", "WPCSystem", "WPCSecurityShim",
                                                 "WPCrypto", "WPPOSIX", "WPText"]),
        // WPServer's drivers on a loop with no socket and no thread, the test playing the peers
        // and the clock (as swift-nio's NIOEmbedded): for the protocols' tests, no product.
        .target(name: "WPServerTesting", dependencies: ["WPServer", "WPCSystem"]),
        // Owned, immovable bytes: what the collector renders into and a response points into.
        .target(name: "WPBytes"),
        .target(name: "WPScheduler", dependencies: ["WPLogging", "WPRuntime"]),
        // Process policy, created once at the top of a process: termination signals (first
        // graceful, then a handler), signals as streams of requests (SIGHUP), the standard
        // streams and their bounded flush at exit (docs/architecture.md, "Signals and process policy").
        .target(name: "WPProcess", dependencies: ["WPRuntime", "WPLogging", "WPPOSIX"]),
        .target(name: "WPCollector", dependencies: ["WPWallClock", "WPRuntime", "WPClient", "WPEnergy", "WPStorage", "WPMetrics", "WPLogging", "WPBytes", "WPCompression"]),
        .target(name: "WPSimulator", dependencies: ["WPRuntime", "WPServer", "WPLogging", "WPText"]),
        // The NUT network protocol (upsd) over the collectors' published readings: every
        // WinPower UPS for upsmon, NAS boxes and hypervisors (docs/nut.md).
        // The exporter maps WinPower readings onto NUT variables (WPNUTFrontEnd's NUTVariables); this
        // library knows only its `NUTDataSource` seam.
        .target(name: "WPNUT", dependencies: ["WPServer", "WPRuntime", "WPText"]),
        // SNMPv1/v2c/v3 over UDP: the BER codec, the user-based security model, a read-only agent over
        // sorted MIB views, the system group and UPS-MIB (RFC 1628) objects, notifications
        // (docs/snmp.md). The exporter serves it through WPSNMPFrontEnd.
        .target(name: "WPSNMP", dependencies: ["WPServer", "WPCSecurityShim", "WPCrypto", "WPRuntime", "WPText"]),

        // The seam every front end of the exporter is built on: the fleet's published state
        // (`FleetState`, `FleetPublishing`), the `FrontEnd` shape, its factory and context, its error.
        .target(name: "WPFrontEnd", dependencies: ["WPWallClock", "WPClient", "WPCollector", "WPEnergy", "WPMetrics", "WPServer", "WPConfig",
                                                    "WPLogging", "WPStorage"]),
        // The published value for tests: a scripted publication and a server's part built from devices.
        .target(name: "WPFrontEndTesting", dependencies: ["WPFrontEnd", "WPClient", "WPCollector", "WPEnergy"]),
        // The NUT server of `nut.*` over the fleet's published state: names, variables, users.
        .target(name: "WPNUTFrontEnd", dependencies: ["WPFrontEnd", "WPNUT", "WPServer", "WPServerMetrics", "WPClient", "WPCollector",
                                                       "WPConfig", "WPLogging", "WPMetrics", "WPEnergy"]),
        // The SNMP agent of `snmp.*` and its notifications, its UPSs named by the publication (as the NUT server's).
        .target(name: "WPSNMPFrontEnd", dependencies: ["WPWallClock", "WPFrontEnd", "WPNUTFrontEnd", "WPNUT", "WPSNMP", "WPServer", "WPClient", "WPCollector",
                                                        "WPConfig", "WPLogging", "WPMetrics", "WPStorage", "WPRuntime", "WPEnergy", "WPPOSIX"]),

        // The status pages on the HTTP listener (`/status`, a page per UPS, outages as CSV and JSON)
        // over the fleet's published state: a per-UPS 24 h history, attention first (docs/status-page.md).
        .target(name: "WPStatusPage", dependencies: ["WPWallClock", "WPFrontEnd", "WPCollector", "WPClient", "WPEnergy", "WPServer",
                                                      "WPRuntime", "WPLogging", "WPCompression", "WPStorage", "WPMetrics",
                                                      "WPHistory", "WPConfig", "WPText", "WPTime"]),

        // Build date and git commit for `wpexporter version` (see gitCommit() below).
        .target(name: "WPCBuildInfo", cSettings: [.define("WPEXPORTER_GIT_COMMIT", to: "\"\(gitCommit())\"")]),
        // The running exporter as a library: one or many WinPower servers, merge, reload, the HTTP
        // surface, the push loop (docs/architecture.md). The executable only composes the command line.
        .target(name: "WPExporter", dependencies: ["WPWallClock", "WPRuntime", "WPLogging", "WPConfig", "WPMetrics", "WPPushgateway", "WPStorage", "WPEnergy", "WPNUT",
                                                    "WPClient", "WPServer", "WPServerMetrics", "WPScheduler", "WPCollector", "WPHTTPClient",
                                                    "WPCBuildInfo", "WPFrontEnd", "WPNUTFrontEnd", "WPSNMPFrontEnd", "WPStatusPage",
                                                    "WPHistory", "WPNotifications", "WPMQTTFrontEnd", "WPText", "WPTime"]),
        // For embedders' tests (as HummingbirdTesting): an exporter against a simulated WinPower
        // in process, on a manual clock, its energy in memory (docs/embedding.md, "Testing").
        .target(name: "WPExporterTesting", dependencies: ["WPWallClock", "WPRuntime", "WPExporter", "WPFrontEnd", "WPConfig", "WPClient", "WPCollector", "WPLogging",
                                                           "WPSimulator", "WPServer", "WPHTTPClient", "WPCompression"]),
        .executableTarget(name: "wpexporter", dependencies: ["WPExporter", "WPLogging", "WPConfig", "WPClient", "WPCollector", "WPProcess",
                                                             "WPServer", "WPSimulator", "WPCMallocTuning"]),
        // glibc heap tuning for the exporter process (arena limit, trim after each collection).
        .target(name: "WPCMallocTuning"),
        .executableTarget(name: "wpbench", dependencies: ["WPWallClock", "WPRuntime", "WPLogging", "WPBytes", "WPMetrics", "WPPushgateway", "WPStorage", "WPEnergy", "WPClient",
                                                           "WPServer", "WPCollector", "WPSimulator", "WPHTTPClient", "WPSNMP",
                                                           "WPCMallocCounter", "WPTestSupport", "WPHistory"]),
        // Allocation counting for wpbench's figures (interposes malloc; see its header).
        .target(name: "WPCMallocCounter"),

        // A service embedding WPMetrics on its own (docs/embedding.md); built by `swift build`.
        .executableTarget(name: "InstrumentedService", dependencies: ["WPMetrics", "WPPushgateway"], path: "Examples/InstrumentedService"),

        // Fakes and helpers shared by the test targets; not a product.
        // The test bodies' own threads (a swift-testing trait), for the test targets only.
        .target(name: "WPTestThreads", dependencies: ["WPRuntime", "WPPOSIX"]),
        .target(name: "WPTestSupport", dependencies: ["WPWallClock", "WPRuntime", "WPLogging", "WPMetrics", "WPPushgateway", "WPStorage", "WPEnergy", "WPClient",
                                                   "WPServer", "WPCollector", "WPSimulator", "WPCSystem", "WPTestThreads", "WPHTTPClient", "WPPOSIX"]),

        .testTarget(name: "WPRuntimeTests", dependencies: ["WPRuntime", "WPTestThreads"]),
        .testTarget(name: "WPPOSIXTests", dependencies: ["WPPOSIX", "WPTestThreads"]),
        .testTarget(name: "WPTextTests", dependencies: ["WPText", "WPTestThreads"]),
        .testTarget(name: "WPTimeTests", dependencies: ["WPTime", "WPTestThreads"]),
        .testTarget(name: "WPCompressionTests", dependencies: ["WPTestThreads", "WPCompression"]),
        .testTarget(name: "WPLoggingTests", dependencies: ["WPTestThreads", "WPLogging", "WPRuntime", "WPCompression", "WPTestSupport", "WPCZlib", "WPText"]),
        .testTarget(name: "WPWallClockTests", dependencies: ["WPTestThreads", "WPWallClock", "WPLogging", "WPRuntime"]),
        .testTarget(name: "WPConfigTests", dependencies: ["WPTestThreads", "WPConfig", "WPRuntime", "WPTime"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "WPMetricsTests", dependencies: ["WPRuntime", "WPTestThreads", "WPMetrics", "WPTestSupport", "WPText"], exclude: ["Golden"]),
        .testTarget(name: "WPPushgatewayTests", dependencies: ["WPRuntime", "WPTestThreads", "WPPushgateway", "WPMetrics", "WPServer", "WPTestSupport"]),
        .testTarget(name: "WPStorageTests", dependencies: ["WPWallClock", "WPTestThreads", "WPStorage", "WPCompression", "WPLogging", "WPRuntime", "WPTestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "WPEnergyTests", dependencies: ["WPWallClock", "WPTestThreads", "WPEnergy", "WPRuntime", "WPStorage", "WPLogging", "WPSimulator", "WPTestSupport", "WPTime"]),
        .testTarget(name: "WPHTTPClientTests", dependencies: ["WPTestThreads", "WPHTTPClient", "WPRuntime", "WPServer", "WPTestSupport"]),
        .testTarget(name: "WPClientTests", dependencies: ["WPWallClock", "WPRuntime", "WPTestThreads", "WPClient", "WPHTTPClient", "WPSimulator", "WPServer", "WPLogging", "WPTestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "WPServerTests", dependencies: ["WPServerTesting", "WPTestThreads", "WPServer", "WPRuntime", "WPCompression", "WPLogging", "WPTestSupport", "WPCSystem"]),
        .testTarget(name: "WPSchedulerTests", dependencies: ["WPRuntime", "WPTestThreads", "WPScheduler", "WPLogging", "WPTestSupport"]),
        .testTarget(name: "WPProcessTests", dependencies: ["WPTestThreads", "WPProcess", "WPLogging", "WPRuntime"]),
        .testTarget(name: "WPCollectorTests", dependencies: ["WPWallClock", "WPRuntime", "WPTestThreads", "WPCollector", "WPBytes", "WPClient", "WPEnergy", "WPStorage", "WPMetrics", "WPLogging",
                                                         "WPSimulator", "WPTestSupport", "WPCompression"],
                    exclude: ["Golden"]),
        .testTarget(name: "WPNUTTests", dependencies: ["WPServerTesting", "WPTestThreads", "WPNUT", "WPServer", "WPLogging", "WPTestSupport"]),
        .testTarget(name: "WPSNMPTests", dependencies: ["WPServerTesting", "WPTestThreads", "WPSNMP", "WPServer", "WPLogging", "WPRuntime", "WPTestSupport"]),
        .testTarget(name: "WPSNMPFrontEndTests", dependencies: ["WPWallClock", "WPTestThreads", "WPSNMPFrontEnd", "WPStorage", "WPSNMP", "WPFrontEnd",
                                                              "WPFrontEndTesting", "WPClient", "WPRuntime", "WPTestSupport"]),
        // The front ends on their own: a scripted publication (WPFrontEndTesting), no exporter.
        .testTarget(name: "WPFrontEndTests", dependencies: ["WPTestThreads", "WPFrontEnd", "WPFrontEndTesting", "WPClient",
                                                          "WPCollector", "WPRuntime", "WPTestSupport"]),
        .testTarget(name: "WPNUTFrontEndTests", dependencies: ["WPTestThreads", "WPNUTFrontEnd", "WPFrontEnd", "WPFrontEndTesting",
                                                             "WPNUT", "WPClient", "WPRuntime", "WPTestSupport"]),
        .testTarget(name: "WPMQTTTests", dependencies: ["WPTestThreads", "WPMQTT"]),
        .testTarget(name: "WPMQTTFrontEndTests", dependencies: ["WPTestThreads", "WPMQTTFrontEnd", "WPConfig", "WPClient",
                                                              "WPTestSupport", "WPEnergy"]),
        .testTarget(name: "WPNotificationsTests", dependencies: ["WPWallClock", "WPTestThreads", "WPNotifications", "WPHistory", "WPHTTPClient",
                                                              "WPCrypto", "WPRuntime", "WPClient", "WPConfig", "WPFrontEnd",
                                                              "WPFrontEndTesting", "WPStorage", "WPTestSupport", "WPLogging", "WPTime"]),
        .testTarget(name: "WPHistoryTests", dependencies: ["WPTestThreads", "WPHistory", "WPTestSupport", "WPConfig", "WPRuntime"]),
        .testTarget(name: "WPStatusPageTests", dependencies: ["WPWallClock", "WPTestThreads", "WPStatusPage", "WPFrontEnd", "WPFrontEndTesting",
                                                            "WPClient", "WPEnergy", "WPRuntime", "WPTestSupport", "WPHistory", "WPTime"]),
        .testTarget(name: "WPExporterTestingTests", dependencies: ["WPTestThreads", "WPExporterTesting", "WPExporter", "WPConfig",
                                                                   "WPRuntime", "WPSimulator"]),
        .testTarget(name: "WPSimulatorTests", dependencies: ["WPTestThreads", "WPSimulator", "WPClient", "WPServer", "WPLogging", "WPTestSupport", "WPRuntime"]),
        .testTarget(name: "WPExporterTests", dependencies: ["WPWallClock", "WPTestThreads", "WPExporter", "WPClient", "WPCollector", "WPConfig", "WPEnergy", "WPLogging",
                                                         "WPMetrics", "WPPushgateway", "WPScheduler", "WPServer", "WPStorage",
                                                         "WPSimulator", "WPTestSupport", "WPCompression", "WPNUT", "WPSNMP", "WPRuntime",
                                                         "WPFrontEnd", "WPNUTFrontEnd", "WPSNMPFrontEnd", "WPStatusPage", "WPHistory", "WPHTTPClient", "WPText", "WPTime"]),
        .testTarget(name: "wpexporterTests", dependencies: ["WPTestThreads", "wpexporter", "WPExporter", "WPConfig", "WPLogging", "WPServer", "WPSimulator", "WPHTTPClient",
                                                         "WPStorage", "WPTestSupport"],
                    exclude: ["Golden"]),  // help goldens, read from the source tree
    ]
)

// Libraries for embedding services and the examples that keep the docs honest (docs/embedding.md).
package.targets += [
    // WPServer's request metrics in WPMetrics (Linux only, like WPServer).
    .target(name: "WPServerMetrics", dependencies: ["WPServer", "WPMetrics", "WPRuntime", "WPCompression"]),
    .testTarget(name: "WPServerMetricsTests", dependencies: ["WPTestThreads", "WPServerMetrics", "WPMetrics", "WPServer", "WPRuntime", "WPTestSupport"]),
    // The examples of docs/*.md and of the main doc comments, compiled so they cannot rot.
    .executableTarget(name: "DocSnippets", dependencies: ["WPMetrics", "WPPushgateway", "WPLogging", "WPScheduler", "WPProcess",
                                                          .target(name: "WPRuntime", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPClient", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPEnergy", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPStorage", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPSimulator", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPConfig", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPExporter", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPServer", condition: .when(platforms: [.linux])),
                                                          .target(name: "WPServerMetrics", condition: .when(platforms: [.linux]))],
                      path: "Examples/DocSnippets"),
    // A service written from docs/embedding.md alone (Linux only: it serves with WPServer).
    .executableTarget(name: "EmbeddedService",
                      dependencies: ["WPMetrics", "WPPushgateway", "WPLogging", "WPScheduler", "WPProcess",
                                     .target(name: "WPServer", condition: .when(platforms: [.linux])),
                                     .target(name: "WPServerMetrics", condition: .when(platforms: [.linux]))],
                      path: "Examples/EmbeddedService"),
    // A service embedding the WinPower exporter: two simulated servers beside its own counters
    // on one /metrics, and a reload (docs/embedding.md; Linux only: it serves with WPServer).
    .executableTarget(name: "EmbeddedWinPower",
                      dependencies: ["WPExporter", "WPConfig", "WPLogging", "WPMetrics",
                                     .target(name: "WPExporterTesting", condition: .when(platforms: [.linux])),
                                     .target(name: "WPServer", condition: .when(platforms: [.linux])),
                                     .target(name: "WPServerMetrics", condition: .when(platforms: [.linux])),
                                     .target(name: "WPSimulator", condition: .when(platforms: [.linux]))],
                      path: "Examples/EmbeddedWinPower"),
    .testTarget(name: "EmbeddedWinPowerTests", dependencies: ["WPTestThreads", "EmbeddedWinPower", "WPLogging"]),
]

// The commit checked out in this package's git repository (worktrees included), read from
// .git without running git; "unknown" outside a repository. Only hexadecimal ids are used,
// so nothing from .git can reach the C define unescaped. Evaluated with the manifest, so a
// build reports the commit of the last manifest evaluation.
func gitCommit() -> String {
    func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    func resolve(_ path: String, against base: String) -> String {
        path.hasPrefix("/") ? path : base + "/" + path
    }
    func commitID(_ text: String?) -> String? {
        guard let text, text.count == 40 || text.count == 64,
              text.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return text
    }
    let root = Context.packageDirectory
    var gitDir = root + "/.git"
    if let pointer = read(gitDir), pointer.hasPrefix("gitdir:") {
        gitDir = resolve(pointer.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespaces), against: root)
    }
    guard let head = read(gitDir + "/HEAD") else { return "unknown" }
    guard head.hasPrefix("ref: ") else { return commitID(head) ?? "unknown" }
    let ref = String(head.dropFirst("ref: ".count))
    var bases = [gitDir]
    if let common = read(gitDir + "/commondir") { bases.append(resolve(common, against: gitDir)) }
    for base in bases {
        if let id = commitID(read(base + "/" + ref)) { return id }
        for line in (read(base + "/packed-refs") ?? "").split(separator: "\n") where line.hasSuffix(" " + ref) {
            if let id = commitID(line.split(separator: " ").first.map(String.init)) { return id }
        }
    }
    return "unknown"
}

// Strict settings for every Swift target, in one place. Warnings are errors only in this
// repository's own CI, which passes `-Xswiftc -warnings-as-errors` on the command line
// (.ci/run): an unsafe flag in the manifest would make SwiftPM refuse this package as a
// versioned dependency of any other package.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
