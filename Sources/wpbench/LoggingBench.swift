import Foundation
import WPLogging
import WPRuntime

/// Benchmark scenarios for the Logging area: encoder cost per record, the full `WPLogger.info`
/// path with redaction, and sustained writes into a rotating, compressing file sink.
enum LoggingBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "logging.encode-json", summary: "JSONLogEncoder, 5 fields, ns/record") {
            encodeBench(JSONLogEncoder(caller: .always))
        },
        Scenario(name: "logging.encode-console", summary: "ConsoleLogEncoder with colours, 5 fields, ns/record") {
            encodeBench(ConsoleLogEncoder(caller: .always, colors: true))
        },
        Scenario(name: "logging.logger-redact", summary: "WPLogger.info through redaction (2 secrets) to a no-op sink, ns/call") {
            let redactor = Redactor(secrets: ["Winp0wer!", "e3b0c44298fc1c149afbf4c8996fb924"])
            let log = WPLogger(label: "collector", level: .info, sink: DiscardingSink(), fields: ["device_id": "e156e6cb"],
                             redactor: redactor)
            let count = 500_000
            let elapsed = measure {
                for index in 0..<count {
                    log.info("collected devices from https://ups.local:8081/api/v1/list", ["devices": .int(index), "duration_ms": 12.5])
                }
            }
            report(count: count, elapsed: elapsed, unit: "call")
        },
        Scenario(name: "logging.file-sink", summary: "RotatingFileSink, JSON, 4 MiB files, gzip on, records/s") {
            let directory = NSTemporaryDirectory() + "wpbench-logging-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let sink = try RotatingFileSink(
                configuration: .init(path: directory + "/bench.log", maxSizeBytes: 4 << 20, maxBackups: 3,
                                     maxAge: 0, compress: true),
                encoder: JSONLogEncoder())
            let log = WPLogger(label: "bench", sink: sink)
            let count = 200_000
            let elapsed = measure {
                for index in 0..<count {
                    log.info("scrape served", ["path": "/metrics", "status": 200, "bytes": .int(index), "duration_ms": 0.42])
                }
            }
            report(count: count, elapsed: elapsed, unit: "record")
            let drained = measure { sink.close() }
            print("   background compression drained \(format(seconds(drained) * 1000)) ms after the last write")
        },
    ]

    private static func encodeBench(_ encoder: any LogEncoder) {
        let record = LogRecord(time: .now(), level: .info, message: "collected devices", logger: "collector",
                               fields: ["devices": 12, "duration_ms": 48.25, "device_id": "e156e6cb",
                                        "url": "https://ups.local:8081/api/v1/list", "ok": true],
                               file: "WPCollector/WinPowerCollector.swift", line: 88)
        let count = 1_000_000
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512)
        var total = 0
        let elapsed = measure {
            for _ in 0..<count {
                buffer.removeAll(keepingCapacity: true)
                encoder.encode(record, into: &buffer)
                total &+= buffer.count
            }
        }
        report(count: count, elapsed: elapsed, unit: "record")
        print("   \(total / count) bytes/record")
    }

    private static func measure(_ body: () -> Void) -> Duration {
        ContinuousClock().measure(body)
    }

    private static func seconds(_ duration: Duration) -> Double {
        duration.inSeconds
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    private static func report(count: Int, elapsed: Duration, unit: String) {
        let total = seconds(elapsed)
        print("   \(count) \(unit)s in \(format(total * 1000)) ms: \(format(total * 1e9 / Double(count))) ns/\(unit), \(Int(Double(count) / total)) \(unit)s/s")
    }
}
