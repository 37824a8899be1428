import Foundation
import Testing
import WPTestThreads
import WPMetrics

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ProcessCollectorTests {
    // A real /proc/self/stat line whose command name contains spaces and parentheses.
    static let stat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 130 0 0 20 0 7 0 "
        + "123456 987654321 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

    static let limits = """
        Limit                     Soft Limit           Hard Limit           Units
        Max cpu time              unlimited            unlimited            seconds
        Max open files            1024                 1048576              files
        Max address space         unlimited            unlimited            bytes

        """

    @Test func parsesStat() throws {
        let stat = try ProcessFiles.parseStat(Self.stat)
        #expect(stat == ProcessFiles.Stat(userTicks: 250, systemTicks: 130, threads: 7, startTicks: 123456,
                                          virtualBytes: 987654321, residentPages: 2048))
    }

    @Test func rejectsTruncatedStat() {
        #expect(throws: MetricsError.unparsableProcessFile("stat", reason: "field 14 is missing (only 5 fields)")) {
            try ProcessFiles.parseStat("1 (x) S 1 2")
        }
        #expect(throws: MetricsError.self) { try ProcessFiles.parseStat("no parenthesis") }
    }

    @Test func parsesLimits() throws {
        let limits = try ProcessFiles.parseLimits(Self.limits)
        #expect(limits.maxOpenFiles == 1024)
        #expect(limits.maxAddressSpace == .max)
        #expect(throws: MetricsError.self) { try ProcessFiles.parseLimits("Max open files            lots") }
    }

    @Test func parsesBootTime() throws {
        #expect(try ProcessFiles.parseBootTime("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n") == 1_700_000_000)
        #expect(throws: MetricsError.self) { try ProcessFiles.parseBootTime("cpu 1 2 3\n") }
    }

    @Test func collectsFromAFakeProcRoot() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let process = root.appendingPathComponent("self")
        try FileManager.default.createDirectory(at: process.appendingPathComponent("fd"), withIntermediateDirectories: true)
        for name in ["0", "1", "2"] {
            #expect(FileManager.default.createFile(atPath: process.appendingPathComponent("fd/\(name)").path, contents: nil))
        }
        try Data(Self.stat.utf8).write(to: process.appendingPathComponent("stat"))
        try Data(Self.limits.utf8).write(to: process.appendingPathComponent("limits"))
        try Data("btime 1700000000\n".utf8).write(to: root.appendingPathComponent("stat"))
        let collector = ProcessCollector(configuration: .init(procRoot: root.path))
        let values = Dictionary(uniqueKeysWithValues: collector.collect().compactMap { family -> (String, SampleValue)? in
            family.samples.first.map { (family.name, $0.value) }
        })
        #expect(values["process_open_fds"] == .gauge(3))
        #expect(values["process_max_fds"] == .gauge(1024))
        #expect(values["process_threads"] == .gauge(7))
        #expect(values["process_virtual_memory_bytes"] == .gauge(987654321))
        #expect(values["process_virtual_memory_max_bytes"] == .gauge(Double(UInt64.max)))
        #expect(values.count == 8)
        if case .counter(let cpu) = values["process_cpu_seconds_total"] { #expect(cpu > 0) } else { Issue.record("no cpu") }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let startTime = 1_700_000_000 + 123_456 / ticks
        #expect(values["process_start_time_seconds"] == .gauge(startTime))
        // The boot time is read once, when the collector is made; later reads do not re-render
        // the system-wide stat file.
        try Data("btime 1800000000\n".utf8).write(to: root.appendingPathComponent("stat"))
        let again = collector.collect().first { $0.name == "process_start_time_seconds" }?.samples.first?.value
        #expect(again == .gauge(startTime))
    }

    @Test func bootTimeMissingAtStartIsReadWhenCollecting() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("self"), withIntermediateDirectories: true)
        try Data(Self.stat.utf8).write(to: root.appendingPathComponent("self/stat"))
        let collector = ProcessCollector(configuration: .init(procRoot: root.path))
        #expect(!collector.collect().contains { $0.name == "process_start_time_seconds" })
        try Data("btime 1700000000\n".utf8).write(to: root.appendingPathComponent("stat"))
        #expect(collector.collect().contains { $0.name == "process_start_time_seconds" })
    }

    @Test func missingProcYieldsNothing() {
        let collector = ProcessCollector(configuration: .init(procRoot: "/nonexistent-proc"))
        #expect(collector.collect().isEmpty)
        #expect(collector.descriptors.count == 8)
    }

    @Test func realProcSelfWhereAvailable() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/stat") else { return }
        let names = ProcessCollector().collect().map(\.name)
        #expect(names.contains("process_resident_memory_bytes"))
        #expect(names.contains("process_start_time_seconds"))
    }
}
