import Foundation
import Testing
import WPTestThreads
@testable import WPStorage
import WPLogging

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
