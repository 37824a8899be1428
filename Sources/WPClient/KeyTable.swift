/// Maps the raw bytes of a JSON key to a case of `Key` without allocating a `String`.
///
/// Built once per decoder; lookups hash the key bytes (FNV-1a) and confirm with a byte
/// comparison, so an unknown key that collides is still rejected.
struct KeyTable<Key: RawRepresentable & CaseIterable & Sendable>: Sendable where Key.RawValue == String {
    private struct Entry: Sendable {
        let bytes: [UInt8]
        let key: Key
    }

    private let entries: [UInt64: [Entry]]

    init() {
        var entries: [UInt64: [Entry]] = [:]
        for key in Key.allCases {
            let bytes = Array(key.rawValue.utf8)
            let hash = bytes.withUnsafeBufferPointer { Self.hash($0, 0..<$0.count) }
            entries[hash, default: []].append(Entry(bytes: bytes, key: key))
        }
        self.entries = entries
    }

    /// The key whose name is `buffer[range]`, or `nil`.
    func lookup(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Key? {
        guard let candidates = entries[Self.hash(buffer, range)] else { return nil }
        for entry in candidates where entry.bytes.count == range.count {
            var equal = true
            for (offset, byte) in entry.bytes.enumerated() where buffer[range.lowerBound + offset] != byte {
                equal = false
                break
            }
            if equal { return entry.key }
        }
        return nil
    }

    /// The key of a ``JSONScanner/Key`` read from `scanner`, decoding escapes if present.
    func lookup(_ key: JSONScanner.Key, in scanner: JSONScanner) throws -> Key? {
        guard key.escaped else { return lookup(scanner.bytes, key.range) }
        return Key(rawValue: try scanner.decodeEscapes(key.range))
    }

    private static func hash(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for index in range {
            hash = (hash ^ UInt64(buffer[index])) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
