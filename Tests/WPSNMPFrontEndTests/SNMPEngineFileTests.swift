import Foundation
import Testing
import WPTestThreads
import WPStorage
@testable import WPSNMPFrontEnd

/// The SNMP engine's ID and boots survive restarts in the data directory; every start counts.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct SNMPEngineFileTests {
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wpexporter-engine-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aNewEngineStartsAtOneAndEachStartCounts() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let id: [UInt8] = [0x80, 0, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8]
        let first = try SNMPEngineFile.start(directory: directory, newEngineID: { id })
        #expect(first.engine == StoredSNMPEngine(engineID: id, boots: 1) && first.problem == nil)
        let second = try SNMPEngineFile.start(directory: directory, newEngineID: { [0x80, 0, 0, 0, 5, 9, 9, 9, 9] })
        #expect(second.engine == StoredSNMPEngine(engineID: id, boots: 2), "the engine ID is kept, boots counts")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/snmp-engine")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: directory + "/snmp-engine.tmp"))
    }

    @Test(arguments: ["engine_id zz\nboots 3\n", "engine_id 8000\nboots 3\n", "engine_id 800000000501\nboots -1\n",
                      "engine_id 800000000501\n", "garbage", "engine_id 800000000501\nboots 3\nextra 1\n"])
    func aDamagedFileStartsANewEngineAndSaysWhy(content: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try content.write(toFile: directory + "/snmp-engine", atomically: true, encoding: .utf8)
        let started = try SNMPEngineFile.start(directory: directory, newEngineID: { [0x80, 0, 0, 0, 5, 7, 7, 7, 7] })
        #expect(started.engine == StoredSNMPEngine(engineID: [0x80, 0, 0, 0, 5, 7, 7, 7, 7], boots: 1))
        #expect(started.problem?.contains("snmp-engine is damaged") == true, "\(started.problem ?? "no problem")")
        #expect(try SNMPEngineFile.start(directory: directory, newEngineID: { [] }).engine.boots == 2, "the repaired file counts on")
    }

    /// RFC 3414 §2.2.2: boots never reach the latched maximum; the engine takes a new ID with
    /// boots 1, saying why, and counts on from there.
    @Test(arguments: [2_147_483_646, 2_147_483_647])
    func bootsAtTheirMaximumStartANewEngine(stored: Int32) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "engine_id 800000000501\nboots \(stored)\n".write(toFile: directory + "/snmp-engine", atomically: true, encoding: .utf8)
        let fresh: [UInt8] = [0x80, 0, 0, 0, 5, 9, 9, 9, 9]
        let started = try SNMPEngineFile.start(directory: directory, newEngineID: { fresh })
        #expect(started.engine == StoredSNMPEngine(engineID: fresh, boots: 1))
        #expect(started.problem?.contains("reached its maximum (2147483647); a new SNMP engine ID was made") == true)
        let next = try SNMPEngineFile.start(directory: directory, newEngineID: { [] })
        #expect(next.engine == StoredSNMPEngine(engineID: fresh, boots: 2))
        #expect(next.problem == nil)
    }

    @Test func bootsBelowTheLastCountOn() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "engine_id 800000000501\nboots 2147483645\n".write(toFile: directory + "/snmp-engine", atomically: true, encoding: .utf8)
        let started = try SNMPEngineFile.start(directory: directory, newEngineID: { [] })
        #expect(started.engine == StoredSNMPEngine(engineID: [0x80, 0, 0, 0, 5, 1], boots: 2_147_483_646))
        #expect(started.problem == nil)
    }
}
