import Foundation
import Testing
import WPTestThreads
import WPEnergy
import WPLogging
@testable import WPStorage
import WPWallClock

/// The ledger lives in WPEnergy and the state file stores a plain record of it: a state file
/// with ledgers, as releases wrote it before that split, loads into the same ledgers and is
/// written back byte for byte.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct OutageLedgerStateFileTests {
    /// A version 2 state file byte for byte as written before the split (its checksum included):
    /// a finished outage and self-tests, an outage in progress, a self-test in progress, and a
    /// device without a ledger.
    static let releasedFile = """
        wpexporter-energy-state v2
        generation 7
        saved-at-ms 1763780000000
        legacy-imported 1
        devices 4
        d 5400000.125 2 ups-1
        o transfers=2 battery-s=95.5 discharge-j=38200.25 hist=1,0,0,1,0,0,0,0,0 hist-sum=310.0 \
        start-ms=1763779000000 end-ms=1763779300000 duration-s=300.0 runtime-s=1420.0 tests=3 \
        test-ms=1763000000000 test-status=2
        d 0.5 0 ups-2
        o transfers=1 battery-s=12.0 discharge-j=4800.0 start-ms=1763779900000 outage=1 open-runtime-s=900.0
        d 7200.0 0 ups-3
        o tests=5 test-ms=1763779990000 test-status=1 test=1
        d 0.0 0 ups-4
        crc32 88b3d14f

        """

    /// The ledgers the released file holds, field by field.
    static var expectedLedgers: [String: OutageLedger] {
        var finished = OutageLedger()
        finished.transfers = 2
        finished.onBatterySeconds = 95.5
        finished.dischargeJoules = 38_200.25
        finished.observe(duration: 10)
        finished.observe(duration: 300)
        finished.lastStart = Date(timeIntervalSince1970: 1_763_779_000)
        finished.lastEnd = Date(timeIntervalSince1970: 1_763_779_300)
        finished.lastDuration = 300
        finished.lastRuntime = 1420
        finished.tests = 3
        finished.lastTest = Date(timeIntervalSince1970: 1_763_000_000)
        finished.lastTestStatus = 2
        var open = OutageLedger()
        open.transfers = 1
        open.onBatterySeconds = 12
        open.dischargeJoules = 4800
        open.lastStart = Date(timeIntervalSince1970: 1_763_779_900)
        open.inOutage = true
        open.openRuntime = 900
        var testing = OutageLedger()
        testing.tests = 5
        testing.lastTest = Date(timeIntervalSince1970: 1_763_779_990)
        testing.lastTestStatus = 1
        testing.inTest = true
        return ["ups-1": finished, "ups-2": open, "ups-3": testing, "ups-4": OutageLedger()]
    }

    @Test func aReleasedFileLoadsIntoTheSameLedgersAndIsWrittenBackByteForByte() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wpenergy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(Self.releasedFile.utf8).write(to: URL(fileURLWithPath: directory + "/energy.state"))

        let saved = Date(timeIntervalSince1970: 1_763_780_000)
        let store = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: directory, importLegacyFiles: false),
                                        logger: .disabled, wallClock: .fixed(saved))
        defer { store.close() }
        let loaded = try store.load()
        #expect(loaded.source == .primary)
        let integrator = EnergyIntegrator<Instant>(configuration: EnergyConfiguration(), seed: loaded.state)
        for (id, ledger) in Self.expectedLedgers {
            #expect(integrator.total(for: id)?.ledger == ledger, "\(id)")
        }

        // Converted back unchanged, the state encodes to the very bytes that were read.
        let state = integrator.state(base: loaded.state)
        #expect(state == loaded.state)
        #expect(StateFileFormat.encode(state) == Array(Self.releasedFile.utf8))

        // Saved through the store (which stamps the next generation), the devices' lines are
        // the same and reload into the same ledgers.
        try store.save(state)
        let written = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/energy.state")), as: UTF8.self)
        let deviceLines = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("d ") || $0.hasPrefix("o ") } }
        #expect(written.hasPrefix("wpexporter-energy-state v2\ngeneration 8\nsaved-at-ms 1763780000000\n"))
        #expect(deviceLines(written) == deviceLines(Self.releasedFile))
        let reloaded = EnergyIntegrator<Instant>(configuration: EnergyConfiguration(), seed: try store.load().state)
        for (id, ledger) in Self.expectedLedgers {
            #expect(reloaded.total(for: id)?.ledger == ledger, "\(id)")
        }
    }

    /// The state file keeps one count per bucket of the domain's histogram.
    @Test func theStoredHistogramHasOneCountPerBucket() {
        #expect(OutageLedger.durationBounds.count + 1 == StoredOutageLedger.durationBucketCount)
        #expect(OutageLedger().durationCounts == StoredOutageLedger().durationCounts)
        #expect(OutageLedger(StoredOutageLedger()) == OutageLedger())
    }
}
