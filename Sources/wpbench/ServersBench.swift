import Foundation
import Glibc
import Synchronization
import WPBytes
import WPClient
import WPCollector
import WPEnergy
import WPLogging
import WPServer
import WPStorage
import WPTestSupport
import WPWallClock

/// The multi-server exporter at the scale of issue 16: 50 servers × 100 devices (about
/// 185,000 series) in one process, collections rendered with their per-family chunks, merged,
/// and scraped over loopback from the merged snapshot as `/metrics` serves it.
enum ServersBench {
    static let scenarios: [Scenario] = [
        Scenario(name: "servers.50x100",
                 summary: "50 servers × 100 devices: CPU per server collection and per merge; CPU per plain and gzip "
                    + "scrape (goals ≤ 5 ms, ≤ 1 ms); RSS (goal ≤ 150 MB)") {
            try await run(servers: 50, devices: 100)
        },
    ]

    static func run(servers: Int, devices: Int) async throws {
        let clock = ContinuousClock()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpbench-servers-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
        defer { store.close() }
        // storage.sync_write: false (saves every flush_interval): with the default, every
        // server's collection would save the whole state of every server.
        let meter = try EnergyMeter.open(persistence: PersistencePolicy(syncWrite: false), store: store, clock: clock,
                                         logger: .disabled)
        let collectors = (0..<servers).map { (server: Int) -> WinPowerCollector<ContinuousClock> in
            let fleet: [Device] = (0..<devices).map { (index: Int) -> Device in
                let alarms: [String] = index % 10 == 0 ? ["A\(index)"] : []
                return Device.make(id: String(format: "%08x-41cb-4b35-b0dd-%012d", server, index), alias: "UPS \(index)",
                                   watts: Double(100 + index), alarmCodes: alarms)
            }
            let readout = DeviceReadout.make(devices: fleet)
            var configuration = CollectorConfiguration()
            configuration.seriesLabels = [SeriesLabel(name: "server", value: "wp-\(server)"),
                                          SeriesLabel(name: "site", value: server.isMultiple(of: 2) ? "north" : "south")]
            configuration.energyKeyPrefix = EnergyKey.prefix(server: "wp-\(server)")
            return WinPowerCollector(configuration: configuration, client: ClientStub([.success(readout)]), meter: meter,
                             clock: clock, wallClock: .system, logger: .disabled)
        }
        func merge() -> MetricsSnapshot {
            MergedExposition.snapshot(of: collectors.map { $0.snapshot.chunks } + [WinPowerCollector.processWideChunks(meter)])
        }
        var collectCPU: [Double] = []
        for round in 0..<3 {
            for collector in collectors {
                let began = CollectorBench.processCPUMilliseconds()
                await collector.collect()
                if round == 2 { collectCPU.append(CollectorBench.processCPUMilliseconds() - began) }
            }
        }
        var mergeCPU: [Double] = []
        var merged = merge()
        for _ in 0..<10 {
            let began = CollectorBench.processCPUMilliseconds()
            merged = merge()
            mergeCPU.append(CollectorBench.processCPUMilliseconds() - began)
        }
        let perCollection = median(collectCPU)
        print(String(format: "   %d series; text %.1f MB in %d parts, gzip %.0f KB / %.0f KB",
                     merged.seriesCount, Double(merged.textParts.reduce(0) { $0 + $1.count }) / 1e6, merged.textParts.count,
                     Double(merged.textGzip.count) / 1e3, Double(merged.openMetricsGzip.count) / 1e3))
        print(String(format: "   CPU per server collection (100 devices, chunks included): median %.2f ms; "
                     + "%d servers every 5 s: %.1f %% of one core", perCollection, servers,
                     perCollection * Double(servers) / 50))
        print(String(format: "   CPU per merge of %d servers: median %.1f ms (min %.1f)", servers, median(mergeCPU),
                     mergeCPU.min() ?? 0))
        var textParts = HTTPBodyParts()
        for slice in merged.textParts { textParts.append(slice.block, range: slice.range) }
        let snapshot = Mutex((merged, textParts))
        let handler = HandlerFunction { request in
            let (current, parts) = snapshot.withLock { $0 }
            let gzip = request.headers["Accept-Encoding"] != nil
            var response = WPHTTPResponse(status: 200, bodyParts: gzip ? [] : parts)
            // The snapshot's shared compressed blocks and the member's end, as `/metrics` sends them.
            if gzip { (response.body, response.bodySuffix) = current.gzipBody(openMetrics: false, appending: []) }
            response.headers.set(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
            if gzip { response.headers.set(name: "Content-Encoding", value: "gzip") }
            return response
        }
        let server = WPHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: handler, logger: .disabled)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try await server.waitUntilListening().port
            for gzip in [false, true] {
                let scrapes = 40
                let began = CollectorBench.processCPUMilliseconds()
                let clientCPU = try await ScrapeClient.run(port: port, gzip: gzip, scrapes: scrapes)
                let serverCPU = (CollectorBench.processCPUMilliseconds() - began - clientCPU) / Double(scrapes)
                print(String(format: "   %@ scrape: %.2f ms CPU in the exporter (client excluded), %d scrapes",
                             gzip ? "gzip " : "plain", serverCPU, scrapes))
            }
            group.cancelAll()
        }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
        }
        print(String(format: "   RSS %.1f MB, peak %.1f MB (this process: %d collectors, the merged snapshot, the server)",
                     field("VmRSS"), field("VmHWM"), servers))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}

/// A blocking keep-alive client on its own thread that reads whole responses; returns the CPU
/// its thread used, so the caller can subtract it from the process's.
enum ScrapeClient {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func run(port: Int, gzip: Bool, scrapes: Int) async throws -> Double {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try loop(port: port, gzip: gzip, scrapes: scrapes) }) }.start()
        }
    }

    static func threadCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }

    private static func loop(port: Int, gzip: Bool, scrapes: Int) throws -> Double {
        let began = threadCPUMilliseconds()
        let descriptor = try LoopbackClient.connectLoopback(port: port)
        defer { close(descriptor) }
        let request = Array(("GET /metrics HTTP/1.1\r\nHost: bench\r\n" + (gzip ? "Accept-Encoding: gzip\r\n" : "") + "\r\n").utf8)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<scrapes {
            guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                throw Failure(description: "send failed")
            }
            var head: [UInt8] = []
            var remaining = -1
            while remaining != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw Failure(description: "connection closed") }
                if remaining < 0 {
                    head.append(contentsOf: buffer[0..<count])
                    guard let end = head.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                    let text = String(decoding: head[..<end.lowerBound], as: UTF8.self).lowercased()
                    guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                          let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                    else { throw Failure(description: "no Content-Length") }
                    remaining = length - (head.count - end.upperBound)
                } else {
                    remaining -= count
                }
            }
        }
        return threadCPUMilliseconds() - began
    }
}
