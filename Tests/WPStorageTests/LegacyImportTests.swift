import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPStorage
import WPTestSupport

/// Import of the previous exporter's `<device_id>.txt` files (fixtures in its exact format:
/// `%d\n%f\n`, unix ms then Wh), including malformed ones.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct LegacyImportTests {
    private func copyFixtures(to directory: String) throws -> [String] {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
            .appendingPathComponent("legacy").path
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures)
        for name in names {
            try FileManager.default.copyItem(atPath: fixtures + "/" + name, toPath: directory + "/" + name)
        }
        return names
    }

    @Test func importsValidFilesOnceReportsMalformedOnesAndLeavesFilesInPlace() throws {
        try withTemporaryDirectory { directory in
            let names = try copyFixtures(to: directory)
            let sink = InMemoryLogSink()
            try withStore(directory, logger: sink.logger(), importLegacy: true) { store in
                let loaded = try store.load()
                let report = try #require(loaded.legacyImport)
                #expect(report.imported.map(\.deviceID) == [
                    "e156e6cb-41f8-4a5a-9a25-1c4b1b4f7c01", "no-final-newline", "ups-rack2",
                ])
                #expect(report.imported[0].wattHours == 1234.56)
                #expect(report.imported[0].updatedAtMillis == 1_763_779_200_000)
                #expect(loaded.state.devices["e156e6cb-41f8-4a5a-9a25-1c4b1b4f7c01"]?.joules == 1234.56 * 3600)
                #expect(loaded.state.devices["ups-rack2"]?.joules == 0)
                #expect(loaded.state.devices["no-final-newline"]?.joules == 88.01 * 3600)
                #expect(loaded.state.legacyFilesImported)

                let skipped = Dictionary(uniqueKeysWithValues: report.skipped.map {
                    (($0.file as NSString).lastPathComponent, $0.reason)
                })
                #expect(skipped.keys.sorted() == ["malformed-energy.txt", "malformed-time.txt", "negative.txt", "one-line.txt"])
                #expect(skipped["malformed-energy.txt"]?.contains("line 2") == true)
                #expect(skipped["malformed-time.txt"]?.contains("line 1") == true)
                #expect(skipped["negative.txt"]?.contains("negative") == true)
                #expect(skipped["one-line.txt"]?.contains("expected 2 lines") == true)
                #expect(sink.records.contains { $0.level == .info && $0.fields["imported"] == .int(3) })
                #expect(sink.records.filter { $0.level == .warn }.count == 4)
                try store.save(loaded.state)
            }
            // The files are left in place, untouched.
            let after = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(Set(names).isSubset(of: Set(after)))

            // A second start does not import again, even if a file changed meanwhile.
            try Data("1763779999000\n99999.000000\n".utf8)
                .write(to: URL(fileURLWithPath: directory + "/ups-rack2.txt"))
            try withStore(directory, importLegacy: true) { store in
                let loaded = try store.load()
                #expect(loaded.legacyImport == nil)
                #expect(loaded.state.devices["ups-rack2"]?.joules == 0)
                #expect(loaded.state.devices.count == 3)
            }
        }
    }

    @Test func storedTotalsWinOverLegacyFiles() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory) { store in
                _ = try store.load()  // import disabled: marker stays unset
                try store.save(EnergyState(devices: ["ups-rack2": .init(joules: 7200)]))
            }
            _ = try copyFixtures(to: directory)
            try withStore(directory, importLegacy: true) { store in
                let loaded = try store.load()
                #expect(loaded.state.devices["ups-rack2"]?.joules == 7200)
                #expect(loaded.legacyImport?.skipped.contains {
                    $0.file.hasSuffix("ups-rack2.txt") && $0.reason.contains("already has a stored total")
                } == true)
            }
        }
    }

    @Test func emptyDirectoryImportsNothingButRecordsTheMarker() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory, importLegacy: true) { store in
                let loaded = try store.load()
                #expect(loaded.legacyImport == LegacyImportReport())
                #expect(loaded.state.legacyFilesImported)
            }
        }
    }
}
