import Foundation
import Testing
import WPTestThreads
@testable import WPStorage
import WPCompression

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StateFileFormatTests {
    @Test func roundTripsExactDoublesAndAwkwardIDs() throws {
        var state = EnergyState(legacyFilesImported: true, generation: 41,
                                savedAt: Date(timeIntervalSince1970: 1_763_779_200.123))
        state.devices = [
            "ups-1": StoredDeviceEnergy(joules: 0.1 + 0.2, gaps: 3),
            "with space and %": StoredDeviceEnergy(joules: 1e300),
            "ünïcode\n\ttab": StoredDeviceEnergy(joules: .leastNonzeroMagnitude),
            "": StoredDeviceEnergy(joules: 0),
        ]
        let bytes = StateFileFormat.encode(state)
        let decoded = try StateFileFormat.decode(bytes).get()
        #expect(decoded.devices == state.devices)
        #expect(decoded.generation == 41)
        #expect(decoded.legacyFilesImported)
        #expect(decoded.savedAt == Date(timeIntervalSince1970: 1_763_779_200.123))
    }

    /// Sections round-trip: the one version 3 holds (three fields, a name) as version 3's `n`
    /// lines, so releases before version 4 keep reading it; any other as version 4; a state
    /// without sections is still written as version 2.
    @Test func sectionsRoundTripInTheOldestVersionThatHoldsThem() throws {
        var state = EnergyState(devices: ["ups-1": StoredDeviceEnergy(joules: 5)])
        #expect(String(decoding: StateFileFormat.encode(state), as: UTF8.self).hasPrefix("wpexporter-energy-state v2\n"))
        state.sections = [StateFileFormat.version3Section: [["ups-1", "rack-a", "机房 \"A\" (C3K) on b%1"],
                                                            ["site\u{1F}ups-2", "ups-2", ""]]]
        var bytes = StateFileFormat.encode(state)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("wpexporter-energy-state v3\n"))
        #expect(text.contains("\nn site%1Fups-2 ups-2 \n"))
        #expect(try StateFileFormat.decode(bytes).get() == state)

        state.sections["other"] = [["a b", "", "%"], []]
        bytes = StateFileFormat.encode(state)
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("wpexporter-energy-state v4\n"))
        #expect(String(decoding: bytes, as: UTF8.self).contains("\ns other a%20b  %25\n"))
        #expect(try StateFileFormat.decode(bytes).get() == state)

        state.sections = [StateFileFormat.version3Section: [["ups-1", "", "no name"]]]
        bytes = StateFileFormat.encode(state)
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("wpexporter-energy-state v4\n"), "a record version 3 cannot hold")
        #expect(try StateFileFormat.decode(bytes).get() == state)
    }

    static func hex8(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// A version 3 file written by 0.3.0 (NUT names as `n` lines) loads, its names as the section.
    @Test func aVersion3FileOfAnEarlierReleaseLoads() throws {
        let body = "wpexporter-energy-state v3\ngeneration 7\nsaved-at-ms 1763780000000\nlegacy-imported 1\ndevices 1\n"
            + "d 3600 0 ups-1\nn ups-1 jifang %E6%9C%BA%E6%88%BF%20(C3K)\n"
        let bytes = Array(body.utf8) + Array("crc32 \(Self.hex8(CRC32.checksum(Array(body.utf8))))\n".utf8)
        let decoded = try StateFileFormat.decode(bytes).get()
        #expect(decoded.devices["ups-1"]?.joules == 3600)
        #expect(decoded.sections == [StateFileFormat.version3Section: [["ups-1", "jifang", "机房 (C3K)"]]])
        var bad = Array(body.utf8.dropLast("jifang %E6%9C%BA%E6%88%BF%20(C3K)\n".utf8.count)) + Array(" x\n".utf8)
        bad += Array("crc32 \(Self.hex8(CRC32.checksum(bad)))\n".utf8)
        #expect(throws: StateFileFormat.FormatFailure.self) { try StateFileFormat.decode(bad).get() }
    }

    @Test func everyTruncationIsRejected() {
        let bytes = StateFileFormat.encode(EnergyState(devices: ["a": .init(joules: 12.5), "b": .init(joules: 7)]))
        for length in 0..<bytes.count {
            let result = StateFileFormat.decode(Array(bytes[0..<length]))
            guard case .failure = result else {
                Issue.record("a file truncated to \(length) of \(bytes.count) bytes was accepted")
                return
            }
        }
    }

    @Test func everySingleByteFlipIsRejected() {
        let bytes = StateFileFormat.encode(EnergyState(devices: ["ups": .init(joules: 3600.25, gaps: 1)]))
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x04
            if case .success = StateFileFormat.decode(damaged) {
                Issue.record("flipping byte \(index) was not detected")
            }
        }
    }

    @Test func checksumMismatchIsNamed() throws {
        var bytes = StateFileFormat.encode(EnergyState(devices: ["ups": .init(joules: 1)]))
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "1")))
        bytes[index] = UInt8(ascii: "9")
        guard case .failure(let failure) = StateFileFormat.decode(bytes) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.description.contains("checksum mismatch"))
    }

    /// Files with a valid checksum but invalid content are rejected with a reason.
    @Test(arguments: [
        ("wpexporter-energy-state v5\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\n", "unknown format"),
        // Version 3's section: `n` lines in v3 only, three fields, a name.
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\nn a ups x\n", "announces 0"),
        ("wpexporter-energy-state v3\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\nn a ups\n", "expected 'n"),
        // Sections: `s` lines in v4 only, with a section name and good %-escapes.
        ("wpexporter-energy-state v4\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\ns  x\n", "expected 's"),
        ("wpexporter-energy-state v4\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\ns a %G1\n", "bad %-escape"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\ns a x\n", "announces 0"),
        ("wpexporter-energy-state v3\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\nn a  x\n", "empty name"),
        // The outage ledger's `o` lines: only in v2, after their device, once, known keys.
        ("wpexporter-energy-state v1\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no transfers=1\n",
         "announces 1"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\no transfers=1\nd 1 0 a\n",
         "must follow"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no transfers=1\no tests=1\n",
         "must follow"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no color=red\n",
         "unknown ledger key"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no tests=1 tests=2\n",
         "repeats"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no hist=1,2\n",
         "out of range"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no battery-s=-1\n",
         "out of range"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no start-ms=9000000000000000000\n",
         "out of range"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no outage=2\n",
         "out of range"),
        ("wpexporter-energy-state v2\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 a\no \n",
         "not key=value"),
        ("wpexporter-energy-state v1\ngeneration x\nsaved-at-ms 0\nlegacy-imported 0\ndevices 0\n", "generation"),
        ("wpexporter-energy-state v1\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 2\nd 1 0 a\n", "announces 2"),
        ("wpexporter-energy-state v1\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd -1 0 a\n", "not a finite number"),
        ("wpexporter-energy-state v1\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd nan 0 a\n", "not a finite number"),
        ("wpexporter-energy-state v1\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 2\nd 1 0 a\nd 2 0 a\n", "appears twice"),
        ("wpexporter-energy-state v1\ngeneration 1\nsaved-at-ms 0\nlegacy-imported 0\ndevices 1\nd 1 0 bad%zz\n", "%-escape"),
    ])
    func rejectsInvalidContentWithReason(body: String, reason: String) {
        var bytes = Array(body.utf8)
        let crc = String(CRC32.checksum(bytes), radix: 16)
        bytes += Array("crc32 \(String(repeating: "0", count: 8 - crc.count) + crc)\n".utf8)
        guard case .failure(let failure) = StateFileFormat.decode(bytes) else {
            Issue.record("accepted: \(body)")
            return
        }
        #expect(failure.description.contains(reason), "\(failure)")
    }

    /// `isEmpty` is checked field by field; each field set alone makes the ledger non-empty,
    /// exactly as comparing with a default ledger says.
    @Test func ledgerIsEmptyOnlyAtEveryDefault() {
        let date = Date(timeIntervalSince1970: 1_763_779_200)
        let changes: [(String, (inout StoredOutageLedger) -> Void)] = [
            ("transfers", { $0.transfers = 1 }), ("battery-s", { $0.onBatterySeconds = 0.5 }),
            ("discharge-j", { $0.dischargeJoules = 1 }), ("hist", { $0.durationCounts[8] = 1 }),
            ("hist length", { $0.durationCounts = [0] }), ("hist-sum", { $0.durationSum = 2 }),
            ("start", { $0.lastStart = date }), ("end", { $0.lastEnd = date }),
            ("duration", { $0.lastDuration = 0 }), ("runtime", { $0.lastRuntime = 0 }),
            ("tests", { $0.tests = 1 }), ("test", { $0.lastTest = date }),
            ("status", { $0.lastTestStatus = 0 }), ("outage", { $0.inOutage = true }),
            ("open runtime", { $0.openRuntime = 0 }), ("in test", { $0.inTest = true }),
        ]
        #expect(StoredOutageLedger().isEmpty)
        for (name, change) in changes {
            var ledger = StoredOutageLedger()
            change(&ledger)
            #expect(!ledger.isEmpty, "\(name)")
            #expect(ledger.isEmpty == (ledger == StoredOutageLedger()), "\(name)")
        }
    }
}
