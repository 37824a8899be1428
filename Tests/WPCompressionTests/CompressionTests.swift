import Testing
import WPTestThreads
import WPCompression

/// Deterministic bytes that compress a little, like metric text: repeated words with varying numbers.
private func sample(_ count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = 0
    while bytes.count < count {
        bytes += Array("winpower_ups_load_percent{device_id=\"\(index % 97)\"} \(index * 7919 % 1013)\n".utf8)
        index += 1
    }
    return Array(bytes.prefix(count))
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CRC32Tests {
    @Test func matchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func nonContiguousCollectionsGiveTheSameChecksum() {
        let bytes = sample(1000)
        #expect(CRC32.checksum(bytes.lazy.map { $0 }) == CRC32.checksum(bytes))
        #expect(CRC32.checksum(bytes[10..<500]) == CRC32.checksum(Array(bytes[10..<500])))
    }

    @Test(arguments: [0, 1, 333, 999, 1000])
    func combineEqualsTheChecksumOfBothParts(split: Int) {
        let bytes = sample(1000)
        let combined = CRC32.combine(CRC32.checksum(bytes[..<split]), CRC32.checksum(bytes[split...]),
                                     secondLength: bytes.count - split)
        #expect(combined == CRC32.checksum(bytes))
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct GzipTests {
    @Test(arguments: [0, 1, 100, 70_000, 300_000])
    func roundTrips(size: Int) throws {
        let bytes = sample(size)
        let compressed = try #require(Gzip.compress(bytes))
        #expect(Array(compressed.prefix(3)) == [0x1F, 0x8B, 0x08], "a gzip header with deflate")
        #expect(Gzip.decompress(compressed) == bytes)
        if size >= 70_000 { #expect(compressed.count < bytes.count / 4, "metric-like text compresses well") }
    }

    @Test func decompressRefusesWhatIsNotExactlyOneMember() throws {
        let bytes = sample(5000)
        let member = try #require(Gzip.compress(bytes))
        #expect(Gzip.decompress([]) == nil, "empty input")
        #expect(Gzip.decompress(Array("plain text".utf8)) == nil, "not gzip")
        #expect(Gzip.decompress(Array(member.dropLast(1))) == nil, "trailer cut short")
        #expect(Gzip.decompress(Array(member.prefix(member.count / 2))) == nil, "blocks cut short")
        #expect(Gzip.decompress(member + member) == nil, "a second member")
        #expect(Gzip.decompress(member + [0]) == nil, "a byte after the member")
        var corrupt = member
        corrupt[corrupt.count - 8] ^= 0x01   // the CRC-32
        #expect(Gzip.decompress(corrupt) == nil, "wrong CRC-32")
        var wrongLength = member
        wrongLength[wrongLength.count - 4] ^= 0x01
        #expect(Gzip.decompress(wrongLength) == nil, "wrong length")
    }

    @Test func decompressStopsAtTheLimit() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let bomb = try #require(Gzip.compress(zeros, level: 9))
        #expect(bomb.count < 2048, "a megabyte of zeros compresses to about a kilobyte")
        #expect(Gzip.decompress(bomb, limit: 1 << 20) == zeros, "exactly at the limit")
        #expect(Gzip.decompress(bomb, limit: (1 << 20) - 1) == nil, "one byte over")
        #expect(Gzip.decompress(bomb, limit: 1000) == nil)
    }

    @Test func encoderInPiecesMakesOneMemberOfAllPieces() throws {
        let bytes = sample(200_000)
        let encoder = try GzipEncoder(level: 1)
        var output: [UInt8] = []
        var offset = 0
        for size in [1, 0, 7, 65_536, 3, 100_000] {
            try encoder.compress(Array(bytes[offset..<(offset + size)]), into: &output)
            offset += size
        }
        try encoder.compress(Array(bytes[offset...]), into: &output)
        try encoder.finish(into: &output)
        #expect(Gzip.decompress(output) == bytes)
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DeflatedChunkTests {
    @Test func chunksConcatenateInAnyOrderIntoOneMember() throws {
        let parts = [sample(10), [], sample(40_000), Array("# EOF\n".utf8)]
        let deflater = ChunkDeflater()
        let chunks = try parts.map { try #require(deflater.chunk($0[...])) }
        #expect(chunks[1] == .empty)
        #expect(Gzip.decompress(DeflatedChunk.gzipMember(chunks)) == Array(parts.joined()))
        #expect(Gzip.decompress(DeflatedChunk.gzipMember(chunks.reversed())) == Array(parts.reversed().joined()))
        #expect(Gzip.decompress(DeflatedChunk.gzipMember([])) == [])
        #expect(chunks[2].length == 40_000)
        #expect(chunks[2].crc == CRC32.checksum(parts[2]))
    }

    @Test func appendableMemberIsContinuedAsOneMember() throws {
        let head = sample(50_000)
        let tail = Array("wpexporter_requests_total 3\n".utf8)
        let member = try #require(DeflatedChunk.appendableGzipMember(head))
        #expect(Gzip.decompress(member) == head)
        let open = OpenGzipMember(member)
        #expect(open.trailer != nil)
        #expect(open.member == member)
        #expect(Gzip.decompress(open.head + open.continuation(appending: tail)) == head + tail)
        #expect(Gzip.decompress(open.head + open.continuation(appending: [])) == head)
        let empty = OpenGzipMember(try #require(DeflatedChunk.appendableGzipMember([])))
        #expect(Gzip.decompress(empty.head + empty.continuation(appending: tail)) == tail)
    }

    @Test func memberOfAnotherShapeIsKeptWholeAndFollowedByASecondMember() throws {
        let head = sample(3000)
        let tail = Array("tail\n".utf8)
        let plain = try #require(Gzip.compress(head))
        let open = OpenGzipMember(plain)
        #expect(open.trailer == nil)
        #expect(open.head == plain)
        #expect(open.member == plain)
        let continuation = open.continuation(appending: tail)
        #expect(Gzip.decompress(continuation) == tail, "a member of its own")
        #expect(Gzip.decompress(open.head + continuation) == nil, "two members: not one")
    }
}
