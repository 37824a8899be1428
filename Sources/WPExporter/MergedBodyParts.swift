import WPCollector
import WPServer

/// A ``ByteBlock`` is allocated, filled once and freed by itself: its bytes never move nor
/// change while it lives, so a response can point into it.
extension ByteBlock: StableBytes {
    public var stableBytes: UnsafeRawBufferPointer { bytes }
}

extension HTTPBodyParts {
    /// Parts pointing into the slices' blocks, in order (nothing copied).
    package init(slices: [ByteSlice]) {
        self.init()
        for slice in slices { append(slice.block, range: slice.range) }
    }
}
