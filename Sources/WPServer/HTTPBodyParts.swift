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
/// let response = HTTPResponse(status: 200, body: header, bodyParts: parts, bodySuffix: tail)
/// ```
public struct HTTPBodyParts: @unchecked Sendable, Equatable, ExpressibleByArrayLiteral {
    // @unchecked: `pieces` point into `owners`' storage, which is immutable and lives as long
    // as these parts (StableBytes' contract); nothing here is ever mutated in place.
    private var owners: [any StableBytes] = []
    private var pieces: [UnsafeRawBufferPointer] = []
    /// The bytes of all pieces.
    public private(set) var byteCount = 0

    public init() {}

    /// Parts holding copies of `buffers`, in order (one allocation for them all).
    public init(_ buffers: [[UInt8]]) {
        let storage = OwnedBytes(buffers)
        var offset = 0
        for buffer in buffers {
            append(storage, range: offset..<offset + buffer.count)
            offset += buffer.count
        }
    }

    public init(arrayLiteral buffers: [UInt8]...) {
        self.init(buffers)
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

/// Bytes copied once into memory of their own ( ``HTTPBodyParts/init(_:)``).
private final class OwnedBytes: StableBytes {
    nonisolated(unsafe) private let storage: UnsafeMutableRawBufferPointer
    private let count: Int

    init(_ buffers: [[UInt8]]) {
        let count = buffers.reduce(0) { $0 + $1.count }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        var offset = 0
        for buffer in buffers {
            buffer.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: storage[offset..<offset + source.count]).copyMemory(from: source)
            }
            offset += buffer.count
        }
        self.storage = storage
        self.count = count
    }

    deinit {
        storage.deallocate()
    }

    var stableBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<count])
    }
}
