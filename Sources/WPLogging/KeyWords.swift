/// The words of a log field's name, for ``Redactor/isSensitiveKey(_:)``, found in its UTF-8
/// bytes without allocating.
///
/// A word is a run of letters and digits (any non-ASCII byte counts as a letter); words are
/// also split where a lower-case ASCII letter meets an upper-case one (`sessionToken`).
enum KeyWords {
    /// The byte range of the last word that ends at or before `end`, or `nil` when there is none.
    static func lastWord(in bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> Range<Int>? {
        var upper = end
        while upper > 0, !isWordByte(bytes[upper - 1]) { upper -= 1 }
        guard upper > 0 else { return nil }
        var lower = upper - 1
        while lower > 0, isWordByte(bytes[lower - 1]), !(isUpper(bytes[lower]) && isLower(bytes[lower - 1])) {
            lower -= 1
        }
        return lower..<upper
    }

    /// Whether the word at `range` equals `name` (lower-case ASCII), ignoring ASCII case.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ name: [UInt8]) -> Bool {
        guard range.count == name.count else { return false }
        for (offset, index) in range.enumerated() {
            let byte = bytes[index]
            if (isUpper(byte) ? byte | 0x20 : byte) != name[offset] { return false }
        }
        return true
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isUpper(byte) || isLower(byte) || (byte >= 0x30 && byte <= 0x39) || byte >= 0x80
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
}
