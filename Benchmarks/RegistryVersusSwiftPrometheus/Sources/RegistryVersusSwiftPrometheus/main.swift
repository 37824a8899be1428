// WPMetrics' general registry path against swift-prometheus 2.4.1, side by side in one process.
//
// Both libraries do the same work: counters named alike, two labels per series, the label
// values looked up on every update (no cached child), integer-valued totals, and a whole
// registry rendered into a reused buffer. The runs of the two libraries alternate, so load from
// other processes falls on both alike. Each scenario runs 3 times unmeasured, then `runs` times;
// the median and the p99 (nearest rank: with 20 runs, the slowest) are printed with the ratio
// WPMetrics ÷ swift-prometheus (below 1: WPMetrics is faster).
//
// Usage: RegistryVersusSwiftPrometheus [--runs N] [--only PREFIX]

import Dispatch
import Foundation
import Prometheus
import WPMetrics

// MARK: - Options


var runs = 20
var only: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs":
        guard let text = arguments.popFirst(), let value = Int(text), value > 0 else {
            fatalError("--runs needs a positive number")
        }
        runs = value
    case "--only":
        guard let prefix = arguments.popFirst() else { fatalError("--only needs a scenario prefix") }
        only = prefix
    case "-h", "--help":
        print("usage: RegistryVersusSwiftPrometheus [--runs N] [--only PREFIX]")
        print("scenarios: increments.4-threads, increments.1-thread, render.10000.text, render.10000.openmetrics,")
        print("           render.100000.text, render.100000.openmetrics")
        exit(0)
    default:
        fatalError("unknown argument \(argument) (try --help)")
    }
}

// MARK: - Measuring

struct Figures {
    var durations: [Duration] = []

    var sorted: [Duration] { durations.sorted() }

    var median: Double {
        let values = sorted.map(milliseconds)
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    /// Nearest-rank p99.
    var p99: Double {
        let values = sorted.map(milliseconds)
        let rank = Int((0.99 * Double(values.count)).rounded(.up))
        return values[max(rank, 1) - 1]
    }
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
}

/// Prints and flushes at once, so each row appears as soon as it is measured, also in a file.
func report(_ line: String) {
    print(line)
    fflush(nil)
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

/// Runs `body(thread)` on `threads` new threads released together; returns the wall time from
/// the release until the last one finished (thread creation is not counted).
func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) -> Duration {
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for thread in 0..<threads {
        done.enter()
        let worker = Thread {
            ready.signal()
            start.wait()
            body(thread)
            done.leave()
        }
        worker.stackSize = 1 << 20
        worker.start()
    }
    for _ in 0..<threads { ready.wait() }
    let clock = ContinuousClock()
    let begin = clock.now
    for _ in 0..<threads { start.signal() }
    done.wait()
    return begin.duration(to: clock.now)
}

@MainActor
/// One scenario: runs both sides alternately (which goes first alternates too) and prints a row.
func compare(_ name: String, note: String, wpmetrics: () -> Duration, swiftPrometheus: () -> Duration) {
    if let only, !name.hasPrefix(only) { return }
    for _ in 0..<3 {  // unmeasured: caches, buffer capacity and lazily built state settle
        _ = wpmetrics()
        _ = swiftPrometheus()
    }
    var ours = Figures()
    var theirs = Figures()
    for run in 0..<runs {
        if run % 2 == 0 {
            ours.durations.append(wpmetrics())
            theirs.durations.append(swiftPrometheus())
        } else {
            theirs.durations.append(swiftPrometheus())
            ours.durations.append(wpmetrics())
        }
    }
    report("\(name) (\(note)), \(runs) runs")
    report("  WPMetrics        median \(format(ours.median)) ms, p99 \(format(ours.p99)) ms")
    report("  swift-prometheus median \(format(theirs.median)) ms, p99 \(format(theirs.p99)) ms")
    report("  ratio WPMetrics / swift-prometheus: median \(format(ours.median / theirs.median, 3)), "
          + "p99 \(format(ours.p99 / theirs.p99, 3))")
}

// MARK: - Labelled increments

let increments = 1_000_000

/// The registries the increment threads share.
enum Shared {
    static let methods = ["GET", "POST", "PUT", "DELETE"]
    static let codes = ["200", "201", "204", "301", "304", "400", "404", "409", "500", "503"]
    static let requestsHelp = "Requests handled, by method and status code."
    static let wpRegistry = MetricRegistry()
    static let wpRequests = try! Shared.wpRegistry.counterVec(name: "http_requests_total", help: Shared.requestsHelp,
                                                       labelNames: ["method", "code"])
    static let spRegistry = PrometheusCollectorRegistry()
    static let spIncrements: any SwiftPrometheusIncrements & Sendable = DeprecatedLookup()
}

/// `perThread` increments of `http_requests_total{method, code}`, 40 label sets, the child
/// looked up by its label values every time.
func wpIncrements(thread: Int, perThread: Int) {
    for index in 0..<perThread {
        let method = Shared.methods[(index &+ thread) & 3]
        let code = Shared.codes[(index / 4 &+ thread) % 10]
        try! Shared.wpRequests.labels(method, code).increment()
    }
}

@available(*, deprecated, message: "calls the cheapest lookup of swift-prometheus, which it deprecates")
func spIncrementsUsingNames(thread: Int, perThread: Int) {
    for index in 0..<perThread {
        let method = Shared.methods[(index &+ thread) & 3]
        let code = Shared.codes[(index / 4 &+ thread) % 10]
        // makeCounter(name:labels:help:) is swift-prometheus' cheapest lookup by label values:
        // makeCounter(descriptor:labels:), which 2.4.1 recommends, also joins the descriptor's
        // name parts into a new string on every call.
        Shared.spRegistry.makeCounter(name: "http_requests_total", labels: [("method", method), ("code", code)],
                               help: Shared.requestsHelp).increment()
    }
}

/// Calls the deprecated lookup without a deprecation warning at every use.
protocol SwiftPrometheusIncrements { func run(thread: Int, perThread: Int) }
struct DeprecatedLookup: SwiftPrometheusIncrements {
    @available(*, deprecated)
    func run(thread: Int, perThread: Int) { spIncrementsUsingNames(thread: thread, perThread: perThread) }
}

for threads in [4, 1] {
    let perThread = increments / threads
    compare("increments.\(threads == 1 ? "1-thread" : "\(threads)-threads")",
            note: "\(increments) labelled increments, \(threads) thread\(threads == 1 ? "" : "s"), lookup by 2 label values each time, 40 series",
            wpmetrics: { onThreads(threads) { wpIncrements(thread: $0, perThread: perThread) } },
            swiftPrometheus: { onThreads(threads) { Shared.spIncrements.run(thread: $0, perThread: perThread) } })
}

// MARK: - Rendering

let families = 10
let statusCodes = ["200", "201", "404", "500", "503"]

/// A registry of `series` counters in 10 families (`bench_family_N_total{route, code}`), each
/// with an integer total, on both sides.
func makeRegistries(series: Int) throws -> (MetricRegistry, PrometheusCollectorRegistry) {
    let ours = MetricRegistry()
    let theirs = PrometheusCollectorRegistry()
    let perFamily = series / families
    for family in 0..<families {
        let name = "bench_family_\(family)_total"
        let help = "Requests of benchmark family \(family)."
        let vector = try ours.counterVec(name: name, help: help, labelNames: ["route", "code"])
        for index in 0..<perFamily {
            let route = "/api/v1/resource/\(index / statusCodes.count)"
            let code = statusCodes[index % statusCodes.count]
            let total = index % 1000 + 1
            try vector.labels(route, code).increment(by: Double(total))
            theirs.makeCounter(descriptor: MetricNameDescriptor(metricName: "bench_family_\(family)", unitName: "total",
                                                                helpText: help),
                               labels: [("route", route), ("code", code)]).increment(by: Int64(total))
        }
    }
    return (ours, theirs)
}

for series in [10_000, 100_000] {
    let (ours, theirs) = try makeRegistries(series: series)
    var buffer: [UInt8] = []
    var spBytes = 0
    for format in [ExpositionFormat.text, .openMetrics] {
        var wpBytes = 0
        compare("render.\(series).\(format == .text ? "text" : "openmetrics")",
                note: "\(series) series in \(families) counter families, 2 labels; swift-prometheus renders text (it has no OpenMetrics)",
                wpmetrics: {
                    buffer.removeAll(keepingCapacity: true)
                    let elapsed = ContinuousClock().measure { ours.render(format: format, into: &buffer) }
                    wpBytes = buffer.count
                    return elapsed
                },
                swiftPrometheus: {
                    buffer.removeAll(keepingCapacity: true)
                    let elapsed = ContinuousClock().measure { theirs.emit(into: &buffer) }
                    spBytes = buffer.count
                    return elapsed
                })
        if wpBytes > 0 { report("  output: WPMetrics \(wpBytes) bytes, swift-prometheus \(spBytes) bytes") }
    }
}
