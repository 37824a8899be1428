import Foundation
import WPEnergy
import WPLogging
import WPStorage

/// `wpbench --child storage-writer DIR [hold]`: a process the storage tests kill with SIGKILL.
///
/// It opens a file store on DIR (taking its lock), loads the state and prints `ready <tick>`.
/// Without `hold` it then saves forever, as fast as it can: each save increments the `tick`
/// device by one joule (and its outage ledger by one transfer, one observed outage of `tick`
/// seconds and 2.5 s on battery, an outage open on odd ticks) and 20 other devices by growing
/// amounts, and `saved <tick>` is printed
/// only after `save` returned. With `hold` it keeps the lock until its stdin closes.
enum StorageWriterChild {
    static func run(_ arguments: [String]) async -> Int32 {
        guard let directory = arguments.first else {
            say("usage: wpbench --child storage-writer DIR [hold]")
            return 64
        }
        do {
            let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory,
                                                                                importLegacyFiles: false),
                                            logger: .disabled)
            var state = try store.load().state
            var tick = state.devices["tick"]?.joules ?? 0
            var ledger = state.devices["tick"].map { OutageLedger($0.ledger) } ?? OutageLedger()
            say("ready \(Int(tick))")
            if arguments.dropFirst().first == "hold" {
                _ = FileHandle.standardInput.readDataToEndOfFile()
                store.close()
                return 0
            }
            while true {
                tick += 1
                ledger.transfers += 1
                ledger.onBatterySeconds += 2.5
                ledger.observe(duration: tick)
                ledger.inOutage = Int(tick) % 2 == 1
                ledger.lastStart = Date(timeIntervalSince1970: 1_760_000_000 + tick)
                state.devices["tick"] = StoredDeviceEnergy(joules: tick, ledger: StoredOutageLedger(ledger))
                for index in 0..<20 {
                    let id = "ups-\(index)"
                    let previous = state.devices[id]?.joules ?? 0
                    state.devices[id] = StoredDeviceEnergy(joules: previous + Double(index + 1) * 0.125)
                }
                try store.save(state)
                say("saved \(Int(tick))")
            }
        } catch {
            FileHandle.standardError.write(Data("storage-writer: \(error)\n".utf8))
            return 1
        }
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
