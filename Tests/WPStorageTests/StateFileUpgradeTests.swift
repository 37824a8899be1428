import Foundation
import Testing
import WPTestThreads
import WPLogging
@testable import WPStorage
import WPCompression
import WPTestSupport

/// The outage ledger's state-file version: files written before it (v1) are read with every
/// total kept and rewritten as v2 on the next save; v2 files round-trip every ledger field.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StateFileUpgradeTests {
    /// A v1 file byte for byte as the release before the ledger wrote it (its checksum included).
    static let releaseV1File = """
        wpexporter-energy-state v1
        generation 7
        saved-at-ms 1763780000000
        legacy-imported 1
        devices 3
        d 5400000.125 0 0b0c4d6e-0001-4b35-b0dd-000000000001
        d 0.1 3 id%20with%20space
        d 1.7976931348623157e+308 9007199254740992 max

        """

    static func withChecksum(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        let crc = String(CRC32.checksum(bytes), radix: 16)
        bytes += Array("crc32 \(String(repeating: "0", count: 8 - crc.count) + crc)\n".utf8)
        return bytes
    }

    @Test func aReleaseV1FileIsReadWithEveryTotalKeptAndUpgradedOnSave() throws {
        try withTemporaryDirectory { directory in
            try Data(Self.withChecksum(Self.releaseV1File)).write(to: URL(fileURLWithPath: directory + "/energy.state"))
            try withStore(directory) { store in
                let loaded = try store.load()
                #expect(loaded.source == .primary)
                #expect(loaded.state.generation == 7)
                #expect(loaded.state.legacyFilesImported)
                #expect(loaded.state.devices["0b0c4d6e-0001-4b35-b0dd-000000000001"] == StoredDeviceEnergy(joules: 5_400_000.125))
                #expect(loaded.state.devices["id with space"] == StoredDeviceEnergy(joules: 0.1, gaps: 3))
                #expect(loaded.state.devices["max"] == StoredDeviceEnergy(joules: .greatestFiniteMagnitude,
                                                                          gaps: StoredDeviceEnergy.maxGaps))
                #expect(loaded.state.devices.values.allSatisfy { $0.ledger.isEmpty })
                var next = loaded.state
                next.devices["id with space"]?.ledger = sampleLedger(step: 1)
                try store.save(next)
            }
            let text = String(decoding: try #require(contents(directory + "/energy.state")), as: UTF8.self)
            #expect(text.hasPrefix("wpexporter-energy-state v2\n"))
            try withStore(directory) { store in
                let loaded = try store.load()
                #expect(loaded.source == .primary)
                #expect(loaded.state.devices["0b0c4d6e-0001-4b35-b0dd-000000000001"]?.joules == 5_400_000.125)
                #expect(loaded.state.devices["id with space"]?.ledger == sampleLedger(step: 1))
            }
        }
    }

    @Test func everyLedgerFieldRoundTrips() throws {
        let state = sampleState(step: 3.5, count: 4)
        let decoded = try StateFileFormat.decode(StateFileFormat.encode(state)).get()
        #expect(decoded.devices == state.devices)
        // A device without a ledger gets no `o` line; one with a ledger exactly one.
        let text = String(decoding: StateFileFormat.encode(state), as: UTF8.self)
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("o ") }.count == 3)
    }

    @Test func onlyChangedFieldsAreWritten() {
        var ledger = StoredOutageLedger()
        ledger.tests = 1
        var text = ""
        StateFileFormat.appendLedgerLine(ledger, to: &text)
        #expect(text == "o tests=1\n")
    }

    @Test func absurdWallClockTimesAreClampedSoTheFileStaysReadable() throws {
        var ledger = StoredOutageLedger()
        ledger.lastStart = Date(timeIntervalSince1970: 1e15)
        ledger.lastTest = Date(timeIntervalSince1970: -1e15)
        let state = EnergyState(devices: ["ups": StoredDeviceEnergy(joules: 1, ledger: ledger)])
        let decoded = try StateFileFormat.decode(StateFileFormat.encode(state)).get()
        #expect(decoded.devices["ups"]?.ledger.lastStart == Date(timeIntervalSince1970: 1e11))
        #expect(decoded.devices["ups"]?.ledger.lastTest == Date(timeIntervalSince1970: -1e11))
    }
}
