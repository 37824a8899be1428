import Foundation
import Testing
import WPTestThreads
import WPLogging
import WPStorage

/// Issue 49: links planted in the data directory were followed — `wpexporter.lock` → a victim
/// truncated it, `energy.state.tmp` → a victim overwrote it and changed its mode. Every file the
/// store creates or opens there refuses a symbolic link, names it in the error, and leaves both
/// the link and the file it points at as they were.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SymbolicLinkTests {
    /// A victim file beside the data directory, with content and mode 0600.
    private static func victim(in directory: String) throws -> String {
        let path = directory + "/victim"
        try "precious\n".write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    private static func expectUntouched(_ victim: String, link: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n", sourceLocation: sourceLocation)
        let mode = try FileManager.default.attributesOfItem(atPath: victim)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the victim's mode is kept", sourceLocation: sourceLocation)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == victim, "the link is left alone",
                sourceLocation: sourceLocation)
    }

    @Test func aLinkedLockFileIsRefusedNamingItAndTheVictimIsUntouched() throws {
        try withTemporaryDirectory { root in
            let victim = try Self.victim(in: root)
            let data = root + "/data"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let lock = data + "/wpexporter.lock"
            try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: victim)
            #expect(throws: StorageError.symbolicLink(path: lock)) {
                _ = try FileEnergyStore(configuration: StorageConfiguration(dataDirectory: data), logger: .disabled)
            }
            #expect(StorageError.symbolicLink(path: lock).description.hasPrefix("\(lock) is a symbolic link"))
            try Self.expectUntouched(victim, link: lock)
        }
    }

    @Test func aLinkedTemporaryStateFileFailsTheSaveAndTheVictimIsUntouched() throws {
        try withTemporaryDirectory { root in
            let victim = try Self.victim(in: root)
            let data = root + "/data"
            try withStore(data) { store in
                try store.save(sampleState(step: 1))
                let temporary = data + "/energy.state.tmp"
                try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: victim)
                #expect(throws: StorageError.symbolicLink(path: temporary)) { try store.save(sampleState(step: 2)) }
                try Self.expectUntouched(victim, link: temporary)
                // The state already saved is intact; removing the link lets the next save through.
                #expect(try store.load().state.devices == sampleState(step: 1).devices)
                try FileManager.default.removeItem(atPath: temporary)
                try store.save(sampleState(step: 3))
                #expect(try store.load().state.devices == sampleState(step: 3).devices)
            }
        }
    }

    /// Neither the state file nor a component's own file (``DataDirectoryFile``: the SNMP
    /// engine's) is read or written through a link.
    @Test func aLinkedStateOrEngineFileIsNeverReadThroughTheLink() throws {
        try withTemporaryDirectory { root in
            let victim = try Self.victim(in: root)
            let data = root + "/data"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let engine = data + "/snmp-engine.tmp"
            try FileManager.default.createSymbolicLink(atPath: engine, withDestinationPath: victim)
            #expect(throws: StorageError.symbolicLink(path: engine)) {
                try DataDirectoryFile(directory: data, name: "snmp-engine").replace(with: [1, 2, 3, 4, 5])
            }
            try Self.expectUntouched(victim, link: engine)
            let linked = data + "/linked"
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: victim)
            #expect(throws: StorageError.symbolicLink(path: linked)) {
                _ = try DataDirectoryFile(directory: data, name: "linked").read()
            }
            let state = data + "/energy.state"
            try FileManager.default.createSymbolicLink(atPath: state, withDestinationPath: victim)
            #expect(throws: StorageError.symbolicLink(path: state)) {
                try withStore(data) { store in _ = try store.load() }
            }
            try Self.expectUntouched(victim, link: state)
        }
    }
}
