/// Immutable bytes at one address for the block's whole life: allocated, filled and freed by
/// the block itself, never moved nor changed: the owned bytes a WPServer response body points
/// into (WPServer's `StableBytes`).
///
/// A server's exposition chunks live in one block, so a merged body of many servers is a list
/// of slices whose addresses can be taken once per merge and handed to the kernel on every
/// scrape, without pinning (and reference-counting) thousands of arrays each time.
package final class ByteBlock: Sendable {
    /// Owned by the block: allocated in `init`, freed in `deinit`, never written after `init`.
    nonisolated(unsafe) private let storage: UnsafeMutableRawBufferPointer

    /// A block holding `pieces` back to back.
    package init(_ pieces: [[UInt8]]) {
        let count = pieces.reduce(0) { $0 + $1.count }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        var offset = 0
        for piece in pieces {
            piece.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: storage[offset..<offset + source.count]).copyMemory(from: source)
            }
            offset += piece.count
        }
        self.storage = storage
        self.count = count
    }

    deinit {
        storage.deallocate()
    }

    /// Bytes in the block.
    package let count: Int

    /// The bytes: the same address and contents for as long as the block lives.
    package var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<count])
    }

    /// A copy of the bytes in `range`.
    package subscript(range: Range<Int>) -> [UInt8] {
        Array(bytes[range])
    }
}

/// A range of a ``ByteBlock``: one piece of a merged body.
package struct ByteSlice: Sendable {
    package let block: ByteBlock
    package let range: Range<Int>

    package init(block: ByteBlock, range: Range<Int>) {
        self.block = block
        self.range = range
    }

    /// Bytes in the slice.
    package var count: Int { range.count }

    /// The slice's bytes: the same address for as long as the block lives.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: block.bytes[range]) }

    /// A copy of the slice's bytes.
    package var array: [UInt8] { block[range] }
}
