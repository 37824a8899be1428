import WPHTTPClient
import Foundation
import WPClient
import WPCollector
import WPEnergy
import WPLogging
import WPSimulator
import WPStorage
import WPWallClock

/// Benchmark scenarios for the WinPowerCollector area: one whole collection cycle.
enum CollectorBench {
    static let scenarios: [Scenario] = [1, 100, 1_000, 10_000].map { devices in
        Scenario(name: "collector.cycle-\(devices)",
                 summary: "one collect(): parse \(devices) simulator devices, integrate, persist, render both formats + gzip"
                    + (devices == 1_000 ? " (goal ≤ 50 ms)" : "")) {
            try await cycle(devices: devices, cycles: devices >= 10_000 ? 8 : 30)
        }
    } + [
        Scenario(name: "collector.cycle-1000-readings",
                 summary: "collector.cycle-1000 where every device sends 8 readings without a metric (passed through) "
                    + "and one in ten is three-phase") {
            try await cycle(devices: 1_000, cycles: 30, extraReadings: 8, threePhaseEvery: 10)
        },
    ]

    /// Runs `cycles` cycles (after a warm-up) against canned simulator pages of 100 devices,
    /// a file energy store with `sync_write`, and prints best and median figures.
    static func cycle(devices count: Int, cycles: Int, extraReadings: Int = 0, threePhaseEvery: Int = 0) async throws {
        let pageSize = 100
        let devices = (0..<count).map { index in
            var device = SimulatedDevice(index: index)
            device.extraReadings = extraReadings
            device.threePhase = threePhaseEvery > 0 && index % threePhaseEvery == 0
            return device
        }
        let pages = stride(from: 0, to: count, by: pageSize).enumerated().map { index, start in
            ClientBench.listBody(devices: devices[start..<min(start + pageSize, count)], total: count,
                                 pageSize: pageSize, page: index + 1)
        }
        var configuration = WinPowerHTTPClient.Configuration(
            baseURL: URL(string: "http://bench.invalid:8081")!, username: "bench", password: "bench")
        configuration.pageSize = pageSize
        configuration.maxPages = pages.count + 1
        let client = WinPowerHTTPClient(configuration: configuration, transport: CannedTransport(pages: pages),
                                        logger: .disabled)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wpbench-collector-\(getpid())-\(count)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
        defer { store.close() }
        let clock = ContinuousClock()
        // `sync_write: true` (the default): one fsynced save per cycle.
        let meter = try EnergyMeter.open(persistence: PersistencePolicy(syncWrite: true), store: store, clock: clock,
                                         logger: .disabled)
        let collector = WinPowerCollector(configuration: CollectorConfiguration(), client: client, meter: meter, clock: clock,
                                  wallClock: .system, logger: .disabled)
        var whole: [Double] = [], fetchOnly: [Double] = [], cpu: [Double] = []
        for round in 0...cycles {
            let began = clock.now
            let cpuBegan = processCPUMilliseconds()
            await collector.collect()
            let elapsed = began.duration(to: clock.now)
            let cpuElapsed = processCPUMilliseconds() - cpuBegan
            let fetchBegan = clock.now
            _ = try await client.fetchDevices()
            let fetchElapsed = fetchBegan.duration(to: clock.now)
            if round > 0 {
                whole.append(milliseconds(elapsed))
                cpu.append(cpuElapsed)
                fetchOnly.append(milliseconds(fetchElapsed))
            }
        }
        let snapshot = collector.snapshot
        guard snapshot.deviceCount == count else {
            throw ClientError(.decode, "expected \(count) devices in the snapshot, got \(snapshot.deviceCount)")
        }
        whole.sort()
        fetchOnly.sort()
        cpu.sort()
        print("   devices: \(count) in \(pages.count) page(s); series \(snapshot.seriesCount); text \(snapshot.text.count / 1024) KiB "
              + "(gzip \(snapshot.textGzip.count / 1024) KiB); OpenMetrics \(snapshot.openMetrics.count / 1024) KiB "
              + "(gzip \(snapshot.openMetricsGzip.count / 1024) KiB); energy saves \(store.statistics.saves)")
        print(String(format: "   whole cycle: best %.2f ms, median %.2f ms (%d cycles)", whole[0], whole[whole.count / 2], cycles))
        print(String(format: "   CPU time of the process per cycle (all threads; steadier than wall time on a busy machine): best %.2f ms, median %.2f ms",
                     cpu[0], cpu[cpu.count / 2]))
        print(String(format: "   of which fetch+parse alone: best %.2f ms, median %.2f ms; the rest (integrate, persist, render, gzip) ≈ %.2f ms",
                     fetchOnly[0], fetchOnly[fetchOnly.count / 2], whole[0] - fetchOnly[0]))
        let gzipTime = (0..<5).map { _ in clock.measure { _ = MetricsSnapshot.gzipMember(of: snapshot.text) } }.min() ?? .zero
        print(String(format: "   gzip of the text body alone: best %.2f ms (the cycle gzips both formats)", milliseconds(gzipTime)))
        print("   peak RSS \(ClientBench.peakRSSMegabytes()) MB (whole process, VmHWM)")
    }

    /// CPU time consumed by the whole process so far (user + system, every thread).
    static func processCPUMilliseconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec) / 1000
        let system = Double(usage.ru_stime.tv_sec) * 1000 + Double(usage.ru_stime.tv_usec) / 1000
        return user + system
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) * 1e-15
    }
}

