import Foundation
import Testing
import WPLogging
import WPStorage
#if canImport(Glibc)
import Glibc
#endif

/// A child process saving state as fast as it can is killed with SIGKILL at random moments;
/// after every kill the state loads, is at least as new as the last save the child reported
/// complete, no total ever decreased, and the outage ledger saved with the totals is the one of
/// the same save (never torn from its energy total).
@Suite(.serialized, .timeLimit(.minutes(3))) struct CrashTests {
    @Test func stateSurvives200RandomKills() throws {
        try withTemporaryDirectory { directory in
            var generator = SeededGenerator(seed: 0xC0FFEE)
            var previous: [String: Double] = [:]
            var lastCompleted = 0
            var sources: [LoadedEnergyState.Source: Int] = [:]
            var unreportedSaves = 0  // killed after a save completed, before it was reported
            var killedMidWrite = 0   // a temp file was left behind
            for kill in 1...200 {
                let child = try StorageWriterProcess(directory: directory)
                let ready = try #require(child.readLine(), "kill \(kill): the child exited before loading")
                #expect(ready == "ready \(lastCompleted)" || ready == "ready \(lastCompleted + 1)", "kill \(kill)")
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
                    #expect(loaded.source == .primary || loaded.source == .fresh, "kill \(kill): \(loaded.source)")
                    let tick = Int(loaded.state.devices["tick"]?.joules ?? 0)
                    #expect(tick >= lastCompleted, "kill \(kill): loaded tick \(tick) older than completed save \(lastCompleted)")
                    #expect(tick <= lastCompleted + 1, "kill \(kill): loaded tick \(tick) was never reported")
                    for (id, device) in loaded.state.devices {
                        #expect(device.joules >= previous[id] ?? 0, "kill \(kill): \(id) decreased")
                    }
                    if let ledger = loaded.state.devices["tick"]?.ledger {
                        #expect(ledger.transfers == tick && ledger.durationCounts.reduce(0, +) == tick, "kill \(kill): ledger of tick \(tick)")
                        #expect(ledger.onBatterySeconds == Double(tick) * 2.5, "kill \(kill)")
                        #expect(ledger.inOutage == (tick % 2 == 1), "kill \(kill)")
                        #expect(ledger.lastStart == Date(timeIntervalSince1970: 1_760_000_000 + Double(tick)), "kill \(kill)")
                    }
                    previous = loaded.state.devices.mapValues(\.joules)
                    if tick > lastCompleted { unreportedSaves += 1 }
                    lastCompleted = max(lastCompleted, tick)
                }
            }
            #expect(lastCompleted > 200, "the child made progress across kills")
            print("crash test: 200 kills, \(lastCompleted) saves, \(killedMidWrite) kills left a temp file, "
                  + "\(unreportedSaves) landed between a save and its report, sources \(sources)")
            #expect(files(in: directory, prefix: "energy.state.corrupt").isEmpty)
        }
    }

    @Test func lockHeldByAnotherProcessIsAClearError() throws {
        try withTemporaryDirectory { directory in
            let child = try StorageWriterProcess(directory: directory, hold: true)
            defer { child.finish() }
            #expect(child.readLine() == "ready 0")
            let error = #expect(throws: StorageError.self) {
                _ = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory), logger: .disabled)
            }
            #expect(error == .locked(lockFile: directory + "/wpexporter.lock", ownerPID: child.pid))
            #expect(error?.description.contains("pid \(child.pid)") == true)
            child.finish()
            // Once the other process is gone the directory can be used.
            try withStore(directory) { store in _ = try store.load() }
        }
    }
}
