/// The hot path of rendering: one `name{a="x",b="y"} value\n` line assembled with raw
/// pointers in a stack buffer and appended to the output with a single copy.
///
/// The prefix `name{a="` and the separators `",b="` are precomputed once per family. Lines
/// that could exceed the stack buffer (very long label values) report `false`, and the caller
/// falls back to the general writer.
struct FastLineWriter {
    /// Bytes of the stack buffer; a line longer than this takes the general path.
    static let capacity = 1024

    /// `name{first="` (or `name ` prefix material when there are no labels).
    private let prefix: [UInt8]
    /// `",second="`, `",third="`, ... one per label after the first, concatenated.
    private let separators: [UInt8]
    /// Offsets of each separator within `separators` (count = labels - 1, plus the end).
    private let separatorEnds: [Int]
    private let labelCount: Int

    init(name: String, labelNames: [String]) {
        var prefix = Array(name.utf8)
        var separators: [UInt8] = []
        var ends: [Int] = []
        for (index, label) in labelNames.enumerated() {
            if index == 0 {
                prefix.append(UInt8(ascii: "{"))
                prefix.append(contentsOf: label.utf8)
                prefix.append(contentsOf: "=\"".utf8)
            } else {
                separators.append(contentsOf: "\",".utf8)
                separators.append(contentsOf: label.utf8)
                separators.append(contentsOf: "=\"".utf8)
                ends.append(separators.count)
            }
        }
        self.prefix = prefix
        self.separators = separators
        self.separatorEnds = ends
        self.labelCount = labelNames.count
    }

    /// Appends the line, or returns false (writing nothing) when it might not fit.
    @inline(__always)
    func write(_ values: [String], _ value: Double, into bytes: inout [UInt8]) -> Bool {
        guard values.count == labelCount else { return false }
        var bound = prefix.count + separators.count + 2 + NumberFormatting.maximumLength + 2
        for labelValue in values { bound += 3 * labelValue.utf8.count }
        guard bound <= Self.capacity else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.capacity) { scratch -> Bool in
            guard let line = scratch.baseAddress else { return false }
            var position = copy(prefix, to: line)
            var separatorStart = 0
            for index in 0..<labelCount {
                if index > 0 {
                    let end = separatorEnds[index - 1]
                    position += separators.withUnsafeBufferPointer { all in
                        copy(UnsafeBufferPointer(rebasing: all[separatorStart..<end]), to: line + position)
                    }
                    separatorStart = end
                }
                guard let written = values[index].utf8.withContiguousStorageIfAvailable({ utf8 in
                    Escaping.writeLabelValue(utf8, to: line + position)
                }) else { return false }
                position += written
            }
            if labelCount > 0 {
                line[position] = UInt8(ascii: "\"")
                line[position + 1] = UInt8(ascii: "}")
                position += 2
            }
            line[position] = UInt8(ascii: " ")
            position += 1
            position += NumberFormatting.write(value, to: line + position)
            line[position] = UInt8(ascii: "\n")
            position += 1
            bytes.append(contentsOf: UnsafeBufferPointer(start: line, count: position))
            return true
        }
    }

    @inline(__always)
    private func copy(_ source: [UInt8], to destination: UnsafeMutablePointer<UInt8>) -> Int {
        source.withUnsafeBufferPointer { copy($0, to: destination) }
    }

    @inline(__always)
    private func copy(_ source: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        guard let base = source.baseAddress, !source.isEmpty else { return 0 }
        destination.update(from: base, count: source.count)
        return source.count
    }
}

extension Escaping {
    /// Writes a label value with `\`, `"` and newline escaped and control and bidirectional
    /// formatting characters replaced by U+FFFD (as ``appendLabelValue(_:to:)``); the destination must have room for three
    /// times the input. Returns the bytes written.
    @inline(__always)
    static func writeLabelValue(_ utf8: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var position = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            // Printable ASCII but `"` and `\` first: nearly every byte of an id or a name.
            if byte > UInt8(ascii: "\""), byte < 0x7F, byte != UInt8(ascii: "\\") {
                destination[position] = byte
                position += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\\"):
                destination[position] = UInt8(ascii: "\\"); destination[position + 1] = UInt8(ascii: "\\")
                position += 2
            case UInt8(ascii: "\""):
                destination[position] = UInt8(ascii: "\\"); destination[position + 1] = UInt8(ascii: "\"")
                position += 2
            case UInt8(ascii: "\n"):
                destination[position] = UInt8(ascii: "\\"); destination[position + 1] = UInt8(ascii: "n")
                position += 2
            case 0xE2 where index + 1 < utf8.count && isBidiFormatting(utf8[index], utf8[index + 1]):
                // A bidirectional formatting character (three bytes), as ``appendLabelValue(_:to:)``.
                index += 2
                position += writeReplacement(to: destination + position)
            case 0xD8 where index < utf8.count && utf8[index] == 0x9C:
                // U+061C ARABIC LETTER MARK.
                index += 1
                position += writeReplacement(to: destination + position)
            case UInt8(ascii: "\t"), 0x20..<0x7F, 0x80..<0xC2, 0xC3...0xFF:
                destination[position] = byte
                position += 1
            case 0xC2 where index < utf8.count && (0x80...0x9F).contains(utf8[index]):
                // A C1 control character (U+0080–U+009F), two bytes in UTF-8.
                index += 1
                position += writeReplacement(to: destination + position)
            case 0xC2:
                destination[position] = byte
                position += 1
            default:
                // C0 controls other than tab and newline, and DEL.
                position += writeReplacement(to: destination + position)
            }
        }
        return position
    }

    /// Writes U+FFFD (3 bytes).
    @inline(__always)
    private static func writeReplacement(to destination: UnsafeMutablePointer<UInt8>) -> Int {
        destination[0] = 0xEF; destination[1] = 0xBF; destination[2] = 0xBD
        return 3
    }
}
