package import WPBytes

/// Bytes that stay at one address, unchanged, for as long as the object lives: storage a
/// response body can point into without pinning it on every write.
///
/// Conformers promise that ``stableBytes`` returns the same buffer every time and that its
/// bytes are neither changed nor freed before the object is deinitialized (memory the object
/// allocates, fills once and frees in `deinit`). A Swift array does not qualify: its address
/// is only promised inside `withUnsafeBytes`.
public protocol StableBytes: AnyObject, Sendable {
    /// The bytes, at the same address and unchanged for the object's lifetime.
    var stableBytes: UnsafeRawBufferPointer { get }
}

/// The middle of a response body: pieces written back to back, never copied nor joined.
///
/// Each piece is a range of some ``StableBytes`` storage, whose address is taken once, when
/// the piece is appended; the parts keep their storages alive. So writing thousands of pieces
/// (a merged exposition of many servers) reads one contiguous list, not thousands of buffers.
/// Build the parts once and serve them many times: copies share everything.
///
/// ```swift
/// var parts = HTTPBodyParts()
/// for chunk in chunks { parts.append(chunk.storage, range: chunk.range) }
/// let response = WPHTTPResponse(status: 200, body: header, bodyParts: parts, bodySuffix: tail)
/// ```
public struct HTTPBodyParts: @unchecked Sendable, Equatable, ExpressibleByArrayLiteral {
    // @unchecked: `pieces` point into `owners`' storage, which is immutable and lives as long
    // as these parts (StableBytes' contract); nothing here is ever mutated in place.
    private var owners: [any StableBytes] = []
    private var pieces: [UnsafeRawBufferPointer] = []
    /// The bytes of all pieces.
    public private(set) var byteCount = 0

    /// Creates empty parts.
    public init() {}

    /// Parts holding copies of `buffers`, in order (one block for them all).
    public init(_ buffers: [[UInt8]]) {
        let storage = ByteBlock(buffers)
        var offset = 0
        for buffer in buffers {
            append(storage, range: offset..<offset + buffer.count)
            offset += buffer.count
        }
    }

    /// Parts holding copies of the buffers, in order (one block for them all).
    public init(arrayLiteral buffers: [UInt8]...) {
        self.init(buffers)
    }

    /// Parts pointing into the slices' blocks, in order (nothing copied).
    package init(slices: [ByteSlice]) {
        self.init()
        for slice in slices { append(slice.block, range: slice.range) }
    }

    /// Adds the bytes of `storage` in `range` after the others (shared, not copied).
    ///
    /// - Precondition: `range` lies within `storage.stableBytes`.
    public mutating func append(_ storage: some StableBytes, range: Range<Int>) {
        let bytes = storage.stableBytes
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range \(range) outside \(bytes.count) bytes")
        if owners.last.map({ $0 !== storage }) ?? true { owners.append(storage) }
        pieces.append(UnsafeRawBufferPointer(rebasing: bytes[range]))
        byteCount += range.count
    }

    /// The number of pieces.
    public var count: Int { pieces.count }

    /// Whether there is no piece.
    public var isEmpty: Bool { pieces.isEmpty }

    /// All pieces as one array (a copy).
    public var joined: [UInt8] {
        var whole: [UInt8] = []
        append(to: &whole)
        return whole
    }

    /// Appends every piece's bytes to `bytes`.
    func append(to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + byteCount)
        for piece in pieces { bytes.append(contentsOf: piece) }
    }

    /// The pieces as arrays (copies), for tests and diagnostics.
    public var buffers: [[UInt8]] { pieces.map { Array($0) } }

    /// Piece `index`: valid for as long as these parts (or a copy) live.
    func piece(_ index: Int) -> UnsafeRawBufferPointer { pieces[index] }

    /// The same bytes in the same pieces.
    public static func == (lhs: HTTPBodyParts, rhs: HTTPBodyParts) -> Bool {
        lhs.byteCount == rhs.byteCount && lhs.pieces.map(\.count) == rhs.pieces.map(\.count) && lhs.joined == rhs.joined
    }
}

/// A ``ByteBlock`` is allocated, filled once and freed by itself: its bytes never move nor
/// change while it lives, so a response can point into it.
extension ByteBlock: StableBytes {
    public var stableBytes: UnsafeRawBufferPointer { bytes }
}
