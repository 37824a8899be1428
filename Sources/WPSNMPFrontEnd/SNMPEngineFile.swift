import WPLogging
package import WPStorage

/// The SNMP agent's engine as it must survive restarts (RFC 3414 §2.2): its `snmpEngineID`,
/// and `snmpEngineBoots`, how many times it has started, so that no start reuses a boots value
/// (SNMPv3's protection against replayed messages rests on it).
package struct StoredSNMPEngine: Sendable, Equatable {
    package var engineID: [UInt8]
    package var boots: Int32

    package init(engineID: [UInt8], boots: Int32) {
        self.engineID = engineID
        self.boots = boots
    }
}

/// The SNMP agent's file in the data directory, `snmp-engine` (a ``DataDirectoryFile``: under
/// the data directory's lock, replaced atomically):
///
/// ```
/// # wpexporter SNMP engine (RFC 3414): keep with the data directory
/// engine_id 80000000050a1b2c3d4e5f6071
/// boots 3
/// ```
package enum SNMPEngineFile {
    package static let name = "snmp-engine"
    /// RFC 3414 §2.2.2: the most boots an engine may count; reaching it, the engine takes a new
    /// identity (a new engine ID, boots 1) rather than stay latched, unable to authenticate.
    package static let maxBoots: Int32 = 2_147_483_647
    /// RFC 3411's engine IDs are 5 to 32 bytes.
    static let engineIDLengths = 5...32

    /// Counts a start of the engine kept in `directory`: reads the file, adds one to its boots
    /// (a new engine ID with boots 1 where that would reach ``maxBoots``) and writes it back — a temporary file, `fsync`, rename, and the
    /// directory's `fsync` — before returning, so a start that serves SNMPv3 never reuses a
    /// boots value. A missing file starts a new engine (`newEngineID()`, boots 1); so does a
    /// damaged one, and `problem` says what was wrong (the managers rediscover the new engine;
    /// trap receivers configured with the old engine ID need the new one).
    ///
    /// - Throws: ``StorageError`` when the file cannot be read or written.
    package static func start(directory: String, newEngineID: () -> [UInt8]) throws(StorageError)
        -> (engine: StoredSNMPEngine, problem: String?) {
        let file = DataDirectoryFile(directory: directory, name: name)
        let path = file.path
        var engine = StoredSNMPEngine(engineID: newEngineID(), boots: 0)
        var problem: String?
        if let bytes = try file.read() {
            switch parse(bytes) {
            case .success(let stored): engine = stored
            case .failure(let reason): problem = "\(path) is damaged (\(reason)); a new SNMP engine ID was made"
            }
        }
        if engine.boots >= maxBoots - 1 {
            // RFC 3414 §2.2.2: an engine whose boots reach the maximum is latched there and can
            // no longer authenticate; it needs a new identity, whose boots start again at 1.
            engine = StoredSNMPEngine(engineID: newEngineID(), boots: 0)
            problem = "snmpEngineBoots of \(path) reached its maximum (\(maxBoots)); a new SNMP engine ID was made "
                + "(RFC 3414 §2.2.2): managers rediscover it, trap receivers set up with the old engine ID need the new one"
        }
        engine.boots += 1
        try file.replace(with: encode(engine), mode: 0o600)
        return (engine, problem)
    }

    static func encode(_ engine: StoredSNMPEngine) -> [UInt8] {
        Array("# wpexporter SNMP engine (RFC 3414): keep with the data directory\nengine_id \(hex(engine.engineID))\nboots \(engine.boots)\n".utf8)
    }

    /// `bytes` as the file writes an engine ID: two lower-case hexadecimal digits each.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16, width: 2) }.joined()
    }

    /// The engine in the file's text, or what is wrong with it.
    static func parse(_ bytes: [UInt8]) -> Result<StoredSNMPEngine, ParseFailure> {
        guard bytes.count <= 4_096, let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ParseFailure("not a short UTF-8 text"))
        }
        var engineID: [UInt8]?
        var boots: Int32?
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            let words = line.split(separator: " ")
            guard words.count == 2 else { return .failure(ParseFailure("unexpected line \(String(line.prefix(40)).debugDescription)")) }
            switch words[0] {
            case "engine_id":
                guard let id = hexBytes(words[1]), engineIDLengths.contains(id.count) else {
                    return .failure(ParseFailure("engine_id is not 5 to 32 bytes in hex"))
                }
                engineID = id
            case "boots":
                guard let value = Int32(words[1]), value >= 1 else { return .failure(ParseFailure("boots is not a number from 1")) }
                boots = value
            default:
                return .failure(ParseFailure("unknown key \(String(words[0].prefix(40)).debugDescription)"))
            }
        }
        guard let engineID, let boots else { return .failure(ParseFailure("engine_id or boots missing")) }
        return .success(StoredSNMPEngine(engineID: engineID, boots: boots))
    }

    struct ParseFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
