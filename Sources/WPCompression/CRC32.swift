import WPCZlib

/// CRC-32 (IEEE 802.3, the polynomial of gzip, zlib and PNG), computed by the system zlib.
package enum CRC32 {
    /// The CRC-32 of `bytes`.
    ///
    /// - Parameter bytes: the bytes; contiguous collections are checksummed in place.
    /// - Returns: the checksum (`0xCBF43926` for the ASCII digits `123456789`).
    package static func checksum<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ update(0, $0) }) { return crc }
        return Array(bytes).withUnsafeBufferPointer { update(0, $0) }
    }

    /// The CRC-32 of two byte sequences one after the other, from the CRC-32 of each and the
    /// length of the second; no byte is read again.
    ///
    /// - Parameters:
    ///   - first: the CRC-32 of the first sequence.
    ///   - second: the CRC-32 of the second sequence.
    ///   - secondLength: the length of the second sequence in bytes.
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_combine(uLong(first), uLong(second), .init(secondLength)))
    }

    /// `crc` continued over `bytes`, which zlib reads at most 4 GiB at a time.
    static func update(_ crc: UInt32, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc = uLong(crc)
        var rest = bytes[...]
        while !rest.isEmpty {
            let piece = rest.prefix(Int(UInt32.max))
            crc = crc32(crc, UnsafeBufferPointer(rebasing: piece).baseAddress, uInt(piece.count))
            rest = rest.dropFirst(piece.count)
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
