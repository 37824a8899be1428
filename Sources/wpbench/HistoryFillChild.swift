import Foundation
import WPHistory
import WPTestSupport

/// `wpbench --child history-fill DIR DAYS DEVICE...`: writes DAYS of history ending now for
/// each DEVICE (`device_id`, or `server/device_id`) into `DIR/history.db` through the history
/// writer's own store (`HistoryStore.write`, `record`): a 5-minute slot of 12 readings per UPS
/// and slot, all UPSs of a slot in one transaction, as the writer does, merged into hours and
/// days; and about every third day per UPS an outage of 8 to 40 minutes (mode 4, the charge
/// falling 1.5 % a minute) journaled as `on_battery`, `alarm_raised` and `mains_back`,
/// `alarm_cleared`. Values follow a day's load curve, seeded by the device (the same run gives
/// the same database). Prints `filled <slots> slots <events> events in <seconds> s` and the
/// writer's CPU per 5-minute batch (the store's writes alone, not the generation). For the
/// `sqlite3` integration case and the history figures (docs/performance.md).
enum HistoryFillChild {
    static func run(_ arguments: [String]) async -> Int32 {
        guard arguments.count >= 3, let days = Int(arguments[1]), days > 0 else {
            say("usage: wpbench --child history-fill DIR DAYS DEVICE...")
            return 64
        }
        let upss = arguments.dropFirst(2).map { name -> HistoryUPS in
            let parts = name.split(separator: "/", maxSplits: 1)
            return parts.count == 2 ? HistoryUPS(server: String(parts[0]), device: String(parts[1])) : HistoryUPS(server: "", device: name)
        }
        do {
            let store = try HistoryStore(path: HistoryStore.path(in: arguments[0]))
            let end = HistoryTier.fiveMinutes.slot(of: Int64(Date().timeIntervalSince1970)) - 300
            let start = end - Int64(days) * 86_400
            var random = SplitMix64(seed: 0x5EED)
            // Per UPS: its base load, and its outages (start slot, minutes).
            let base = upss.map { _ in 300 + Double(random.next() % 1_200) }
            var outages: [[(start: Int64, minutes: Int64)]] = upss.map { _ in [] }
            for index in upss.indices {
                var time = start + Int64(random.next() % 86_400)
                while time < end {
                    outages[index].append((HistoryTier.fiveMinutes.slot(of: time), 8 + Int64(random.next() % 33)))
                    time += 2 * 86_400 + Int64(random.next() % (2 * 86_400))
                }
            }
            var energy = upss.map { _ in 1_000 + Double(random.next() % 1_000) }
            var (slots, events) = (0, 0)
            let began = Date()
            var writerCPU = 0.0
            var time = start
            while time < end {
                var batch: [HistorySlot] = []
                var journal: [HistoryEvent] = []
                for (index, ups) in upss.enumerated() {
                    let outage = outages[index].first { time >= $0.start && time < $0.start + $0.minutes * 60 }
                    var slot = HistorySlot(ups: ups, start: time)
                    let hour = Double((time % 86_400) / 3_600)
                    let load = base[index] * (0.8 + 0.4 * sin((hour - 8) / 24 * 2 * .pi))
                    for second in stride(from: Int64(0), to: 300, by: 25) {
                        let minutesOn = outage.map { Double(time + second - $0.start) / 60 } ?? 0
                        var values: [HistoryMetric: Double] = [
                            .loadWatts: load + Double(random.next() % 40), .loadPercent: load / 30,
                            .batteryCharge: outage == nil ? 100 : max(5, 100 - 1.5 * minutesOn),
                            .batteryRuntime: outage == nil ? 3_600 : max(60, 3_600 - 90 * minutesOn),
                            .outputVoltage: 220 + Double(random.next() % 10) / 10, .temperature: 26 + Double(random.next() % 10) / 10]
                        if outage == nil {
                            values[.inputVoltage] = 228 + Double(random.next() % 60) / 10
                            values[.inputFrequency] = 49.95 + Double(random.next() % 10) / 100
                        }
                        energy[index] += load * 25 / 3_600_000
                        slot.add(HistorySample(time: time + second, values: values, mode: outage == nil ? 3 : 4, energyKWh: energy[index]))
                    }
                    batch.append(slot)
                    if let outage, outage.start == time {
                        journal += [HistoryEvent(time: time, server: ups.server, device: ups.device, kind: .onBattery, detail: ups.device),
                                    HistoryEvent(time: time, server: ups.server, device: ups.device, kind: .alarmRaised, code: "0x21",
                                                 detail: "Utility power failure")]
                    } else if let last = outages[index].last(where: { $0.start + $0.minutes * 60 <= time }),
                              last.start + last.minutes * 60 > time - 300 {
                        journal += [HistoryEvent(time: time, server: ups.server, device: ups.device, kind: .mainsBack, detail: ups.device),
                                    HistoryEvent(time: time, server: ups.server, device: ups.device, kind: .alarmCleared, code: "0x21",
                                                 detail: "Utility power failure")]
                    }
                }
                let writing = CollectorBench.processCPUMilliseconds()
                try store.write(batch)
                events += try store.record(journal).count
                writerCPU += CollectorBench.processCPUMilliseconds() - writing
                slots += batch.count
                time += 300
            }
            let batches = max(1, Int((end - start) / 300))
            say("filled \(slots) slots \(events) events in \(String(format: "%.1f", Date().timeIntervalSince(began))) s; "
                + "writer CPU per 5-minute batch of \(upss.count) UPSs: \(String(format: "%.2f", writerCPU / Double(batches))) ms")
            store.database.close()
            return 0
        } catch {
            say("history-fill: \(error)")
            return 1
        }
    }

    private static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
