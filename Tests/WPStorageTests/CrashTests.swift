import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPRuntime
import WPStorage
import WPTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A child process saving state as fast as it can is killed with SIGKILL at random moments;
/// after every kill the state loads, is at least as new as the last save the child reported
/// complete, no total ever decreased, and the outage ledger saved with the totals is the one of
/// the same save (never torn from its energy total).
/// Its time limit allows for a machine whose cores other processes keep busy: 100 child processes
/// started and killed take 10-20 s alone; beside a busy loop per core at its own priority the
/// slowest of 20 runs took 104 s (`STRESS_NICE=0 scripts/stress-tests.sh 20`), and the limit keeps
/// 4 times that.
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(22))) struct CrashTests {
    /// The 100 kills run on a thread of their own (spawning, reading and killing block), not on
    /// Swift's pool; what went wrong is collected there and expected here.
    @Test func stateSurvives100RandomKills() async throws {
        let (problems, summary) = try await NamedThread.run(name: "test-crashes") { try Self.killTwoHundredTimes() }
        for problem in problems { Issue.record(Comment(rawValue: problem)) }
        print(summary)
    }

    /// Every broken expectation as a message, and the run's summary.
    private static func killTwoHundredTimes() throws -> (problems: [String], summary: String) {
        var problems: [String] = []
        func check(_ condition: Bool, _ message: String) {
            if !condition { problems.append(message) }
        }
        return try withTemporaryDirectory { directory in
            var generator = SplitMix64(seed: 0xC0FFEE)
            var previous: [String: Double] = [:]
            var lastCompleted = 0
            var sources: [LoadedEnergyState.Source: Int] = [:]
            var unreportedSaves = 0  // killed after a save completed, before it was reported
            var killedMidWrite = 0   // a temp file was left behind
            for kill in 1...100 {
                let child = try BenchChild.storageWriter(directory: directory)
                guard let ready = child.readLine() else { return (problems + ["kill \(kill): the child exited before loading"], "") }
                check(ready == "ready \(lastCompleted)" || ready == "ready \(lastCompleted + 1)", "kill \(kill)")
                // Kill after 0–3 reported saves plus a random spin, so kills land anywhere in a save.
                var lines: [String] = []
                for _ in 0..<Int.random(in: 0...3, using: &generator) { lines += [child.readLine()].compactMap { $0 } }
                for _ in 0..<Int.random(in: 0..<1000, using: &generator) { sched_yield() }
                child.kill()
                // Lines written before the kill tell which saves completed.
                lines += child.remainingLines()
                let reported = lines.compactMap { line in
                    line.hasPrefix("saved ") ? Int(line.dropFirst(6)) : nil
                }
                lastCompleted = max(lastCompleted, reported.max() ?? lastCompleted)
                if FileManager.default.fileExists(atPath: directory + "/energy.state.tmp") { killedMidWrite += 1 }

                try withStore(directory) { store in
                    let loaded = try store.load()
                    sources[loaded.source, default: 0] += 1
                    check(loaded.source == .primary || loaded.source == .fresh, "kill \(kill): \(loaded.source)")
                    let tick = Int(loaded.state.devices["tick"]?.joules ?? 0)
                    check(tick >= lastCompleted, "kill \(kill): loaded tick \(tick) older than completed save \(lastCompleted)")
                    check(tick <= lastCompleted + 1, "kill \(kill): loaded tick \(tick) was never reported")
                    for (id, device) in loaded.state.devices {
                        check(device.joules >= previous[id] ?? 0, "kill \(kill): \(id) decreased")
                    }
                    if let ledger = loaded.state.devices["tick"]?.ledger {
                        check(ledger.transfers == tick && ledger.durationCounts.reduce(0, +) == tick, "kill \(kill): ledger of tick \(tick)")
                        check(ledger.onBatterySeconds == Double(tick) * 2.5, "kill \(kill)")
                        check(ledger.inOutage == (tick % 2 == 1), "kill \(kill)")
                        check(ledger.lastStart == Date(timeIntervalSince1970: 1_760_000_000 + Double(tick)), "kill \(kill)")
                    }
                    previous = loaded.state.devices.mapValues(\.joules)
                    if tick > lastCompleted { unreportedSaves += 1 }
                    lastCompleted = max(lastCompleted, tick)
                }
            }
            check(lastCompleted > 100, "the child made progress across kills")
            check(files(in: directory, prefix: "energy.state.corrupt").isEmpty, "a state file was found corrupt")
            return (problems, "crash test: 100 kills, \(lastCompleted) saves, \(killedMidWrite) kills left a temp file, "
                        + "\(unreportedSaves) landed between a save and its report, sources \(sources)")
        }
    }

    @Test func lockHeldByAnotherProcessIsAClearError() throws {
        try withTemporaryDirectory { directory in
            let child = try BenchChild.storageWriter(directory: directory, hold: true)
            defer { child.finish() }
            #expect(child.readLine() == "ready 0")
            let error = #expect(throws: StorageError.self) {
                _ = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
            }
            #expect(error == .locked(lockFile: directory + "/wpexporter.lock", ownerPID: child.pid))
            // The program holding it is named: a service embedding the exporter as well as wpexporter.
            #expect(error?.description.contains("in use by another process (pid \(child.pid), wpbench)") == true,
                    "\(error?.description ?? "")")
            child.finish()
            // Once the other process is gone the directory can be used.
            try withStore(directory) { store in _ = try store.load() }
        }
    }
}
