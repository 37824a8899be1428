import Foundation
import Testing
import WPHistory
import WPRuntime
import WPTestSupport
import WPTestThreads
#if canImport(Glibc)
import Glibc
#endif

/// A child process writing history as fast as it can (a batch of slots, an event, the cleanup,
/// over and over) is killed with SIGKILL at 30 random moments. After every kill the database
/// opens and passes SQLite's integrity check; every batch the child reported written is there,
/// for every UPS alike (a batch is all or nothing: at most the one being written is lost); each
/// hour is the sum of its 5-minute slots; and after the last kill the 5-minute slots the
/// retention keeps have no gap (each restart continued where the database stopped).
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(10))) struct HistoryCrashTests {
    static let upss = 8

    @Test func theDatabaseSurvives30RandomKills() async throws {
        let (problems, summary) = try await NamedThread.run(name: "test-history-crashes") { try Self.kill30Times() }
        for problem in problems { Issue.record(Comment(rawValue: problem)) }
        print(summary)
    }

    private static func kill30Times() throws -> (problems: [String], summary: String) {
        var problems: [String] = []
        let directory = temporaryPathRemovedAtExit("wpexporter-history-crash")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var generator = SplitMix64(seed: 0xDB)
        var lastReported: Int64?
        var unreported = 0
        for kill in 1...30 {
            let child = try BenchChild(["history-writer", directory, String(upss)])
            guard let ready = child.readLine(), ready.hasPrefix("ready "), let next = Int64(ready.dropFirst(6)) else {
                return (problems + ["kill \(kill): the child did not start"], "")
            }
            // It continues after the database's last slot: the last reported, or a later one
            // written before the kill but not reported yet.
            if let lastReported {
                if next > lastReported + 300 { unreported += 1 } else if next != lastReported + 300 {
                    problems.append("kill \(kill): continues at \(next) after \(lastReported)")
                }
            }
            var lines: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &generator) { lines += [child.readLine()].compactMap { $0 } }
            for _ in 0..<Int.random(in: 0..<20_000, using: &generator) { sched_yield() }
            child.kill()
            lines += child.remainingLines()
            let reported = lines.compactMap { $0.hasPrefix("wrote ") ? Int64($0.dropFirst(6)) : nil }
            lastReported = reported.max() ?? lastReported
            problems += check(directory, after: kill, reported: lastReported)
        }
        // The 5-minute slots the retention keeps, without a gap.
        let store = try HistoryStore(path: HistoryStore.path(in: directory), readOnly: true)
        for index in 0..<upss {
            let starts = try store.slots(of: HistoryUPS(server: "", device: "ups-\(index)"), tier: .fiveMinutes, from: 0, to: .max).map(\.start)
            if zip(starts, starts.dropFirst()).contains(where: { $1 - $0 != 300 }) { problems.append("ups-\(index): a gap in \(starts)") }
        }
        store.database.close()
        return (problems, "30 kills; the last batch written \(lastReported.map(HistoryQuery.utc) ?? "none"); "
                + "\(unreported) kills landed after a batch was written but before it was reported")
    }

    /// What is wrong with the database after a kill.
    private static func check(_ directory: String, after kill: Int, reported: Int64?) -> [String] {
        do {
            // Opened for writing, as the next writer does (recovering the write-ahead log).
            let store = try HistoryStore(path: HistoryStore.path(in: directory))
            defer { store.database.close() }
            var problems: [String] = []
            let integrity = try store.database.rows("PRAGMA integrity_check").first?.first?.text
            if integrity != "ok" { problems.append("kill \(kill): integrity_check says \(integrity ?? "nothing")") }
            var lasts: Set<Int64> = []
            for index in 0..<upss {
                let ups = HistoryUPS(server: "", device: "ups-\(index)")
                let fine = try store.slots(of: ups, tier: .fiveMinutes, from: 0, to: .max)
                lasts.insert(fine.last?.start ?? -1)
                // Each hour whose 5-minute slots are all kept is their sum.
                let first = fine.first.map { HistoryTier.hour.slot(of: $0.start) + ($0.start % 3_600 == 0 ? 0 : 3_600) } ?? .max
                for hour in try store.slots(of: ups, tier: .hour, from: first, to: .max) {
                    let parts = fine.filter { $0.start >= hour.start && $0.start < hour.start + 3_600 }
                    if parts.reduce(0, { $0 + $1.samples }) != hour.samples {
                        problems.append("kill \(kill): \(ups.device)'s hour \(HistoryQuery.utc(hour.start)) has \(hour.samples) samples, its slots \(parts.reduce(0) { $0 + $1.samples })")
                    }
                }
            }
            if lasts.count != 1 { problems.append("kill \(kill): the UPSs' last slots differ: \(lasts.sorted()) (a batch torn)") }
            if let reported, let last = lasts.first, last < reported {
                problems.append("kill \(kill): the last slot is \(last), before the last reported written \(reported)")
            }
            return problems
        } catch {
            return ["kill \(kill): the database does not open: \(error)"]
        }
    }
}
