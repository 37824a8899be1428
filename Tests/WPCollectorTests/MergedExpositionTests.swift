import WPStorage
import Foundation
import Testing
import WPTestThreads
import WPBytes
import WPClient
@testable import WPCollector
import WPEnergy
import WPLogging
import WPRuntime
import WPTestSupport
import WPCompression
import WPWallClock

/// The merged exposition of several servers' collectors sharing one energy meter: each
/// family's header once, every series labelled with its server, gzip bodies that decode to
/// the plain ones, and a body the reference parsers accept.
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct MergedExpositionTests {
    /// Two servers with the same device ids (identity is (server, device)) and a third down.
    struct Fleet {
        let clock: ManualClock
        let meter: EnergyMeter<ManualClock>
        let collectors: [WinPowerCollector<ManualClock>]
        /// Server "a" again, without series labels and with its own meter: the single-server rendering.
        let single: WinPowerCollector<ManualClock>

        init() throws {
            let logger = WPLogger(label: "merge", level: .debug, sink: InMemoryLogSink())
            let clock = ManualClock()
            let meter = try EnergyMeter.open(store: InMemoryEnergyStore(), clock: clock, logger: logger)
            self.clock = clock
            self.meter = meter
            let readout = DeviceReadout.make(devices: [.make(id: "ups-1", watts: 100), .make(id: "ups-2", alias: "B\"x", watts: 300)])
            let clients: [any WinPowerClient] = [ClientStub([.success(readout)]), ClientStub([.success(readout)]),
                                                 ClientStub([.failure(ClientError(.network, "connection refused"))])]
            let epoch = Date(timeIntervalSince1970: 1_760_365_813)
            single = WinPowerCollector(configuration: CollectorConfiguration(target: "http://a.test:8081"),
                               client: ClientStub([.success(readout)]),
                               meter: try EnergyMeter.open(store: InMemoryEnergyStore(), clock: clock, logger: logger),
                               clock: clock, wallClock: .following(clock, from: epoch),
                               logger: logger)
            let names = ["a", "b", "down"]
            collectors = zip(names, clients).map { name, client in
                var configuration = CollectorConfiguration(target: "http://\(name).test:8081")
                configuration.seriesLabels = [SeriesLabel(name: "server", value: name),
                                              SeriesLabel(name: "site", value: name == "a" ? "north \"1\"" : "south")]
                configuration.energyKeyPrefix = EnergyKey.prefix(server: name)
                let epoch = Date(timeIntervalSince1970: 1_760_365_813)
                return WinPowerCollector(configuration: configuration, client: client, meter: meter, clock: clock,
                                 wallClock: .following(clock, from: epoch),
                                 logger: logger)
            }
        }

        func collect() async {
            for collector in collectors + [single] { await collector.collect() }
        }

        var merged: MetricsSnapshot {
            MergedExposition.snapshot(of: collectors.map { $0.snapshot.chunks } + [WinPowerCollector.processWideChunks(meter)])
        }
    }

    @Test func everyFamilyHeaderOnceAndEverySeriesLabelledWithItsServer() async throws {
        let fleet = try Fleet()
        await fleet.collect()
        fleet.clock.advance(by: .seconds(5))
        await fleet.collect()
        let merged = fleet.merged
        let text = String(decoding: merged.wholeText, as: UTF8.self)
        let lines = text.split(separator: "\n")
        let helps = lines.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] }
        #expect(Set(helps).count == helps.count, "a family's HELP appears once")
        let single = String(decoding: fleet.single.snapshot.text, as: UTF8.self)
        #expect(helps.count == single.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.count)
        #expect(helps == helps.sorted())
        for line in lines where !line.hasPrefix("#") {
            if line.hasPrefix("winpower_exporter_energy_") {
                #expect(!line.contains("server="), "process-wide: \(line)")
            } else {
                #expect(line.contains("{server=\""), "per server: \(line)")
            }
        }
        #expect(lines.filter { $0.hasPrefix("winpower_exporter_energy_state_reset") }.count == 1)
        let exposition = try CollectorExposition(text: merged.wholeText)
        #expect(exposition.value("winpower_exporter_up", ["server": "a", "site": "north \"1\""]) == 1)
        #expect(exposition.value("winpower_exporter_up", ["server": "down", "site": "south"]) == 0)
        #expect(exposition.value("winpower_exporter_scrape_errors_total",
                                 ["server": "down", "site": "south", "error_type": "network"]) == 2)
        // 100 W for 5 s on each server, kept apart although the device ids are the same.
        let joules = exposition.samples("winpower_device_energy_joules_total", ["device_id": "ups-1"])
        #expect(joules.map { $0.labels["server"] } == ["a", "b"])
        #expect(joules.allSatisfy { $0.value == 500 })
        #expect(Set(fleet.meter.totals.keys) == ["a\u{1F}ups-1", "a\u{1F}ups-2", "b\u{1F}ups-1", "b\u{1F}ups-2"])
        #expect(merged.deviceCount == 4)
        #expect(merged.seriesCount == lines.filter { !$0.hasPrefix("#") }.count)
    }

    /// `/probe`'s body: one server's chunks without their labels are what a single-server
    /// collector renders, less the process-wide families.
    @Test func aServersStandaloneBodyIsTheSingleServerRendering() async throws {
        let fleet = try Fleet()
        await fleet.collect()
        fleet.clock.advance(by: .seconds(5))
        await fleet.collect()
        let chunks = try #require(fleet.collectors[0].snapshot.chunks)
        #expect(fleet.collectors[0].snapshot.text.isEmpty, "a labelled collector keeps only its chunks")
        func withoutProcessWide(_ body: [UInt8]) -> String {
            String(decoding: body, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .filter { line in !WinPowerCollector<ManualClock>.processWideFamilies.contains { line.contains($0.replacing("_total", with: "")) } }
                .joined(separator: "\n")
        }
        #expect(String(decoding: chunks.standalone(openMetrics: false), as: UTF8.self)
                == withoutProcessWide(fleet.single.snapshot.text))
        #expect(String(decoding: chunks.standalone(openMetrics: true), as: UTF8.self)
                == withoutProcessWide(fleet.single.snapshot.openMetrics))
    }

    /// The merged plain bodies are lists of slices of the servers' own blocks: a merge copies
    /// none of the text, and every family's lines of every server are there once, in order.
    @Test func theMergedPlainBodiesShareTheServersBlocks() async throws {
        let fleet = try Fleet()
        await fleet.collect()
        let merged = fleet.merged
        #expect(merged.text.isEmpty && merged.openMetrics.isEmpty)
        let partAddresses = Set(merged.textParts.compactMap(\.bytes.baseAddress))
        for collector in fleet.collectors {
            let chunks = try #require(collector.snapshot.chunks)
            for family in chunks.families where family.textSlice.count > 0 {
                #expect(family.textSlice.block === chunks.block)
                #expect(family.textSlice.bytes.baseAddress.map(partAddresses.contains) == true, "\(family.name) copied")
            }
        }
        #expect(merged.textParts.count == merged.openMetricsParts.count)
        #expect(merged.wholeText == merged.textParts.flatMap(\.array))
    }

    /// A block's bytes stay where they are and as they were: slices read back what was stored.
    @Test func aByteBlockHoldsItsPiecesBackToBack() {
        let block = ByteBlock([[1, 2, 3], [], [4, 5]])
        #expect(block.count == 5 && Array(block.bytes) == [1, 2, 3, 4, 5])
        let slice = ByteSlice(block: block, range: 1..<4)
        #expect(slice.array == [2, 3, 4] && slice.count == 3)
        #expect(slice.bytes.baseAddress == block.bytes.baseAddress.map { $0 + 1 })
        #expect(ByteBlock([]).count == 0 && ByteBlock([]).bytes.isEmpty)
    }

    @Test func gzipBodiesDecodeToThePlainOnes() async throws {
        let fleet = try Fleet()
        await fleet.collect()
        let merged = fleet.merged
        #expect(Gzip.decompress(merged.textGzip) == merged.wholeText)
        #expect(Gzip.decompress(merged.openMetricsGzip) == merged.wholeOpenMetrics)
        let om = String(decoding: merged.wholeOpenMetrics, as: UTF8.self)
        #expect(om.contains("# TYPE winpower_exporter_scrape_errors counter\n"))
        #expect(om.contains("# UNIT winpower_exporter_collection_duration_seconds seconds\n"))
        // A scrape continues the merged member with the per-scrape part: one member for clients.
        let (body, suffix) = merged.gzipBody(openMetrics: true, appending: Array("# EOF\n".utf8))
        #expect(Gzip.decompress(body + suffix) == merged.wholeOpenMetrics + Array("# EOF\n".utf8))
    }

    /// promtool and Python's prometheus-client (as IntegrationTests/tests_01_exposition/test_03_reference_tools.sh runs them) accept
    /// the merged bodies; skipped where the tools are not installed.
    @Test func referenceParsersAcceptTheMergedBody() async throws {
        let fleet = try Fleet()
        await fleet.collect()
        let merged = fleet.merged
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("merged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let textFile = directory.appendingPathComponent("merged.txt")
        let openMetricsFile = directory.appendingPathComponent("merged.om.txt")
        try Data(merged.wholeText).write(to: textFile)
        try Data(merged.wholeOpenMetrics + Array("# EOF\n".utf8)).write(to: openMetricsFile)
        if let promtool = Self.which("promtool") {
            // Its lint names one known problem of the single-server exposition (the gauge
            // winpower_exporter_device_count ends in _count); the merge must add none.
            let singleFile = directory.appendingPathComponent("single.txt")
            try Data(fleet.single.snapshot.text).write(to: singleFile)
            let merged = try Self.run(promtool, ["check", "metrics"], stdin: textFile)
            let single = try Self.run(promtool, ["check", "metrics"], stdin: singleFile)
            #expect(Set(merged.output.split(separator: "\n")) == Set(single.output.split(separator: "\n")),
                    "promtool: \(merged.output)")
            #expect(!merged.output.contains("error"), "promtool: \(merged.output)")
        }
        if let python = Self.which("python3"), try Self.run(python, ["-c", "import prometheus_client"]).status == 0 {
            let script = """
            import sys
            from prometheus_client.parser import text_string_to_metric_families as text
            from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
            a = list(text(open(sys.argv[1]).read())); b = list(om(open(sys.argv[2]).read()))
            assert len(a) == len(b) and len(a) > 40, (len(a), len(b))
            """
            let (status, output) = try Self.run(python, ["-c", script, textFile.path, openMetricsFile.path])
            #expect(status == 0, "prometheus-client: \(output)")
        }
    }

    static func which(_ tool: String) -> String? {
        ChildProcess.executable(named: tool)
    }

    static func run(_ path: String, _ arguments: [String], stdin: URL? = nil) throws -> (status: Int32, output: String) {
        let child = try ChildProcess(path, arguments, standardInput: stdin != nil, errorOutput: .merged)
        if let stdin {
            try child.write(Array(try Data(contentsOf: stdin)))
            child.closeInput()
        }
        return (child.waitUntilDone() ?? -1, child.standardOutput)
    }
}
