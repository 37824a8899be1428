import Foundation
import WPHistory

/// `wpbench --child history-writer DIR UPSS`: a process the history tests kill with SIGKILL.
/// Writes 5-minute slots of UPSS UPSs into `DIR/history.db` as the history writer does (one
/// transaction per batch of every UPS's slot, merged into hours and days; then an event; then
/// the cleanup of what is past retention, after every batch so kills land in it too), as fast as
/// it can, continuing after the last slot the database holds (as a restarted exporter does).
/// Prints `ready <next slot start>`, then `wrote <slot start>` after each batch is written.
/// Retention: 5-minute slots 2 hours, hours 2 days, days 30 days (of the slots' own time).
enum HistoryWriterChild {
    static let origin: Int64 = 1_767_225_600  // 2026-01-01T00:00:00Z
    static let retention: [HistoryTier: Int64] = [.fiveMinutes: 2 * 3_600, .hour: 2 * 86_400, .day: 30 * 86_400]

    static func run(_ arguments: [String]) async -> Int32 {
        guard arguments.count == 2, let count = Int(arguments[1]), count > 0 else {
            say("usage: wpbench --child history-writer DIR UPSS")
            return 64
        }
        let upss = (0..<count).map { HistoryUPS(server: "", device: "ups-\($0)") }
        do {
            let store = try HistoryStore(path: HistoryStore.path(in: arguments[0]))
            var time = origin
            for ups in upss {
                if let last = try store.slots(of: ups, tier: .fiveMinutes, from: 0, to: .max).last { time = max(time, last.start + 300) }
            }
            say("ready \(time)")
            while true {
                let batch = upss.enumerated().map { index, ups in
                    var slot = HistorySlot(ups: ups, start: time)
                    for second in stride(from: Int64(0), to: 300, by: 30) {
                        slot.add(HistorySample(time: time + second, values: [.loadWatts: Double(100 + index + Int(second)),
                                                                            .batteryCharge: 90 + Double(second % 10)],
                                               mode: 3, energyKWh: Double(time - origin) / 3_600))
                    }
                    return slot
                }
                try store.write(batch)
                try store.record([HistoryEvent(time: time, server: "", device: upss[0].device,
                                               kind: (time / 300) % 2 == 0 ? .alarmRaised : .alarmCleared, code: "1", detail: "x")])
                try store.prune(before: retention.mapValues { time - $0 })
                say("wrote \(time)")
                time += 300
            }
        } catch {
            say("history-writer: \(error)")
            return 1
        }
    }

    private static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
