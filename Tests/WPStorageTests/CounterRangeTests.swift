import Foundation
import Testing
import WPTestThreads
import WPLogging
@testable import WPStorage
import WPCompression
import WPTestSupport

/// State-file counters at the edge of their types: loading keeps the totals, saving and
/// integrating saturate instead of trapping (a trap would keep the file and crash-loop).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CounterRangeTests {
    /// A state file with valid checksum whose header and device lines are given verbatim.
    private func writeStateFile(_ directory: String, generation: String, devices: [String]) throws {
        var text = "\(StateFileFormat.magic)\ngeneration \(generation)\nsaved-at-ms 0\nlegacy-imported 1\n"
        text += "devices \(devices.count)\n" + devices.map { $0 + "\n" }.joined()
        var bytes = Array(text.utf8)
        let crc = String(CRC32.checksum(bytes), radix: 16)
        bytes += Array("crc32 \(String(repeating: "0", count: 8 - crc.count) + crc)\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/energy.state"))
    }

    @Test func maximalGenerationLoadsAndSavesWithoutTrapping() throws {
        try withTemporaryDirectory { directory in
            try writeStateFile(directory, generation: "18446744073709551615", devices: ["d 7200.5 0 ups-1"])
            try withStore(directory) { store in
                let loaded = try store.load()
                #expect(loaded.source == .primary)
                #expect(loaded.state.generation == .max)
                #expect(loaded.state.devices["ups-1"]?.joules == 7200.5)
                var next = loaded.state
                next.devices["ups-1"]?.joules = 7300
                try store.save(next)
                try store.save(next)
            }
            try withStore(directory) { store in
                let reloaded = try store.load()
                #expect(reloaded.source == .primary)
                #expect(reloaded.state.generation == .max)
                #expect(reloaded.state.devices["ups-1"]?.joules == 7300)
            }
        }
    }

    @Test func hugeGapCountsAreClampedAndKeepTheirTotals() throws {
        try withTemporaryDirectory { directory in
            try writeStateFile(directory, generation: "3",
                               devices: ["d 3600 \(Int.max) ups-1", "d 1800 \(Int.max - 1) ups-2"])
            let loaded = try withStore(directory) { try $0.load() }
            #expect(loaded.source == .primary)
            #expect(loaded.state.devices["ups-1"] == StoredDeviceEnergy(joules: 3600, gaps: StoredDeviceEnergy.maxGaps))
            #expect(loaded.state.devices["ups-2"]?.joules == 1800)
        }
    }

    @Test func incrementsSaturate() {
        #expect(StoredDeviceEnergy.incremented(UInt64.max) == .max)
        #expect(StoredDeviceEnergy.incremented(UInt64(41)) == 42)
        #expect(StoredDeviceEnergy.incremented(Int.max) == StoredDeviceEnergy.maxGaps)
        #expect(StoredDeviceEnergy.incremented(-5) == 1)
    }
}
