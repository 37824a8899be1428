import Foundation
import WPLogging
import WPStorage
import WPWallClock

/// A scratch directory removed when the body returns.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("wpstorage-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Opens a store on `directory`, runs `body`, and closes it.
@discardableResult
func withStore<T>(_ directory: String, logger: WPLogger = .disabled, importLegacy: Bool = false,
                  wallClock: WallClock = .system,
                  _ body: (FileEnergyStore) throws -> T) throws -> T {
    let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory,
                                                                        importLegacyFiles: importLegacy),
                                    logger: logger, wallClock: wallClock)
    defer { store.close() }
    return try body(store)
}

/// A state of `count` devices whose totals grow with `step`; every device but the first has an
/// outage ledger (so the recovery tests run on files with `o` lines).
func sampleState(step: Double, count: Int = 3) -> EnergyState {
    var state = EnergyState()
    for index in 0..<count {
        state.devices["ups-\(index)"] = StoredDeviceEnergy(joules: step * Double(index + 1) * 1000.5, gaps: index,
                                                           ledger: index == 0 ? StoredOutageLedger() : sampleLedger(step: step))
    }
    return state
}

/// A ledger with every field set, growing with `step`.
func sampleLedger(step: Double) -> StoredOutageLedger {
    var ledger = StoredOutageLedger()
    ledger.transfers = Int(step) + 2
    ledger.onBatterySeconds = step * 61.25
    ledger.dischargeJoules = step * 24_000.5
    // Two observed outages: one of 4 s (the first bucket, ≤ 10 s) and one of `step` × 1000 s
    // (the bucket of the first bound ≥ it, as WPEnergy's ledger counts them).
    let bounds: [Double] = [10, 30, 60, 300, 900, 1800, 3600, 14400]
    ledger.durationCounts[0] += 1
    ledger.durationCounts[bounds.firstIndex { step * 1000 <= $0 } ?? bounds.count] += 1
    ledger.durationSum = 4 + step * 1000
    ledger.lastStart = Date(timeIntervalSince1970: 1_760_000_000 + step)
    ledger.lastEnd = Date(timeIntervalSince1970: 1_760_001_000.125 + step)
    ledger.lastDuration = step * 1000
    ledger.lastRuntime = 312.5
    ledger.tests = 3
    ledger.lastTest = Date(timeIntervalSince1970: 1_759_000_000)
    ledger.lastTestStatus = 2
    ledger.inOutage = true
    ledger.openRuntime = 1200
    ledger.inTest = true
    return ledger
}

func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Files in `directory` whose name starts with `prefix`.
func files(in directory: String, prefix: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { $0.hasPrefix(prefix) }.sorted()
}

