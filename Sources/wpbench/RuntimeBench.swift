import Foundation
import Glibc
import WPTestSupport

/// Benchmark scenarios for the running exporter: resident memory of the real `wpexporter
/// server` process, idle and with 1,000 devices, against `wpexporter simulate`.
///
/// They run the release `wpexporter` binary next to this one, so build both first:
/// `swift build -c release && swift run -c release wpbench runtime`.
enum RuntimeBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "runtime.rss-idle", summary: "RSS of `wpexporter server` with 0 devices, 2 cycles after the first (goal ≤ 25 MB)") {
            try await measure(devices: 0)
        },
        Scenario(name: "runtime.rss-1000", summary: "RSS of `wpexporter server` with 1,000 devices, 2 cycles after the first (goal ≤ 60 MB)") {
            try await measure(devices: 1_000)
        },
    ]

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts the simulator and the exporter, waits until the exporter has published `devices`
    /// devices and a few more 5 s cycles have run, then prints its memory figures.
    static func measure(devices: Int) async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("wpexporter").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw Failure(description: "\(binary) not found: run `swift build -c release` first")
        }
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("wpbench-runtime-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let simulator = try Child(binary, ["simulate", "--port", "0", "--devices", String(devices), "--page-size", "100"])
        defer { simulator.stop() }
        let simulatorURL = try simulator.waitForURL(after: "simulator")
        let exporter = try Child(binary, ["server", "--port", "0", "--server.host", "127.0.0.1",
                                          "--winpower.base_url", simulatorURL, "--winpower.username", "admin",
                                          "--data-dir", dataDirectory, "--log-level", "warn"],
                                 environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": "admin"])
        defer { exporter.stop() }
        let metricsURL = try exporter.waitForURL(after: "metrics:")
        guard let port = URL(string: metricsURL)?.port else { throw Failure(description: "no port in \(metricsURL)") }
        let published = Date()
        while !(try scrape(port: port)).contains("\nwinpower_exporter_device_count \(devices)\n") {
            guard Date().timeIntervalSince(published) < 60 else { throw Failure(description: "no collection within 60 s") }
            try await Task.sleep(for: .milliseconds(100))
        }
        // A few more cycles (5 s each): the figures of a settled process, not of the first one.
        try await Task.sleep(for: .seconds(11))
        let status = try String(contentsOfFile: "/proc/\(exporter.pid)/status", encoding: .utf8)
        func field(_ name: String) -> String {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            return String(format: "%.1f MB", kilobytes / 1024)
        }
        print("   RSS \(field("VmRSS")) (anonymous \(field("RssAnon")), file-backed \(field("RssFile"))), "
              + "peak \(field("VmHWM"))")
        print("   largest file-backed mappings: " + (try largestMappings(pid: exporter.pid)))
    }

    /// The eight files with the most resident pages in the process, from `/proc/PID/smaps`.
    static func largestMappings(pid: Int32) throws -> String {
        var residentByFile: [String: Int] = [:]
        var current: String?
        // Read with stdio: /proc files report size 0 and Foundation stops after its first read.
        guard let file = fopen("/proc/\(pid)/smaps", "r") else { throw Failure(description: "cannot read smaps of \(pid)") }
        defer { fclose(file) }
        var lines: [String] = []
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&buffer, &capacity, file) > 0, let buffer { lines.append(String(cString: buffer)) }
        free(buffer)
        for line in lines {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
            if parts.count >= 6, parts[0].contains("-") {
                current = parts[5].hasPrefix("/") ? String(parts[5].split(separator: "/").last ?? "") : nil
            } else if parts.first == "Rss:", let file = current, let kilobytes = Int(parts[1]) {
                residentByFile[file, default: 0] += kilobytes
            }
        }
        return residentByFile.sorted { $0.value > $1.value }.prefix(8)
            .map { String(format: "%@ %.1f MB", $0.key, Double($0.value) / 1024) }.joined(separator: ", ")
    }

    /// The body and head of one `GET /metrics` to the exporter on `port` (read to the close).
    static func scrape(port: Int) throws -> String {
        let descriptor = try LoopbackClient.connectLoopback(port: port)
        defer { close(descriptor) }
        let request = Array("GET /metrics HTTP/1.1\r\nHost: wpbench\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw Failure(description: "send failed")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            response.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: response, as: UTF8.self)
    }

    /// A child process whose standard output is read for the URL it prints.
    final class Child: Sendable {
        private let child: ChildProcess
        var pid: Int32 { child.pid }

        init(_ binary: String, _ arguments: [String], environment: [String: String] = [:]) throws {
            child = try ChildProcess(binary, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                     errorOutput: .merged)
        }

        /// The first `http://127.0.0.1:PORT` on a line containing `label`.
        func waitForURL(after label: String) throws -> String {
            let (text, found) = child.waitForOutput { Self.url(in: $0, after: label) != nil }
            guard found, let url = Self.url(in: text, after: label) else {
                throw Failure(description: "process printed no '\(label)' URL:\n\(text)")
            }
            return url
        }

        private static func url(in text: String, after label: String) -> String? {
            for line in text.split(separator: "\n") where line.contains(label) {
                if let start = line.range(of: "http://127.0.0.1:") {
                    return String(line[start.lowerBound...].prefix { !$0.isWhitespace && $0 != "," })
                }
            }
            return nil
        }

        func stop() {
            child.signal(SIGTERM)
            _ = child.waitUntilDone()
        }
    }
}
