import Foundation
import Testing
import WPTestThreads
@testable import WPStorage
import WPLogging
import WPTestSupport

/// Other components' sections of the state file: kept by the store, written by every save,
/// loaded back by the next start, whatever the store knows of them (nothing).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct StateSectionsTests {
    @Test func aFileStoreWritesTheSectionsWithTheTotalsAndLoadsThemBack() throws {
        try withTemporaryDirectory { directory in
            let configuration = StorageConfiguration(dataDirectory: directory)
            do {
                let store = try FileEnergyStore(configuration: configuration, logger: .disabled)
                defer { store.close() }
                _ = try store.load()
                #expect(store.sections.all.isEmpty)
                #expect(store.sections.replace("nut-names", with: [["ups-1", "jifang", "机房 (C3K)"]]))
                #expect(!store.sections.replace("nut-names", with: [["ups-1", "jifang", "机房 (C3K)"]]), "unchanged")
                store.sections.replace("engine", with: [["x y", ""]])
                #expect(store.sections.hasUnwrittenChanges)
                try store.save(EnergyState(devices: ["ups-1": StoredDeviceEnergy(joules: 7200)]))
                #expect(!store.sections.hasUnwrittenChanges)
            }
            let again = try FileEnergyStore(configuration: configuration, logger: .disabled)
            defer { again.close() }
            let loaded = try again.load()
            #expect(loaded.state.devices["ups-1"]?.joules == 7200)
            #expect(again.sections.all == ["nut-names": [["ups-1", "jifang", "机房 (C3K)"]], "engine": [["x y", ""]]])
            #expect(!again.sections.hasUnwrittenChanges, "as loaded")
            again.sections.replace("engine", with: [])
            #expect(again.sections.all.keys.sorted() == ["nut-names"], "no records removes the section")
        }
    }

    /// Sections no component claims may hold 1 MiB in a save: a small one (a newer version's,
    /// after a downgrade) is kept, a huge one (204 MB in the report; 2 MiB here) is dropped and
    /// named in a warning with its size, and a claimed one of any size stays.
    @Test func sectionsNobodyReadsAreBounded() throws {
        try withTemporaryDirectory { directory in
            let configuration = StorageConfiguration(dataDirectory: directory)
            let big = (0..<2_048).map { [String($0), String(repeating: "x", count: 1_024)] }
            do {
                let store = try FileEnergyStore(configuration: configuration, logger: .disabled)
                defer { store.close() }
                _ = try store.load()
                for name in ["huge-unknown", "small-unknown", "claimed-big"] {
                    store.sections.replace(name, with: name == "small-unknown" ? [["kept"]] : big)
                }
                try store.save(EnergyState())
            }
            do {
                let logs = InMemoryLogSink()
                let again = try FileEnergyStore(configuration: configuration, logger: logs.logger())
                defer { again.close() }
                _ = try again.load()
                #expect(again.sections.records("claimed-big").count == 2_048)   // read: claimed
                try again.save(EnergyState())
                #expect(again.sections.all.keys.sorted() == ["claimed-big", "small-unknown"])
                let warned = logs.records.filter { $0.message.hasPrefix("a section of the state file no component reads is dropped") }
                #expect(warned.map { $0.fields["section"]?.description } == ["huge-unknown"])
                var bytes = 0
                for record in big { bytes += 1 + record[0].utf8.count + 1 + record[1].utf8.count + 1 }
                #expect(warned.first?.fields["bytes"]?.description == String(bytes))
            }
            let third = try FileEnergyStore(configuration: configuration, logger: .disabled)
            defer { third.close() }
            #expect(try third.load().state.sections.keys.sorted() == ["claimed-big", "small-unknown"], "gone from the file")
        }
    }

    @Test func aFailedSaveLeavesTheChangesUnwritten() throws {
        let store = InMemoryEnergyStore()
        _ = try store.load()
        store.sections.replace("a", with: [["1"]])
        store.failNextSaves(1)
        #expect(throws: StorageError.self) { try store.save(EnergyState()) }
        #expect(store.sections.hasUnwrittenChanges)
        try store.save(EnergyState())
        #expect(!store.sections.hasUnwrittenChanges)
        #expect(store.savedStates.last?.sections == ["a": [["1"]]])
    }
}
