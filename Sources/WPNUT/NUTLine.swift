/// One command line of the NUT network protocol split into its words, as upsd splits it.
///
/// Words are separated by spaces or tabs; a word in double quotes may hold spaces; a backslash
/// takes the next character literally, inside quotes or not (`\"`, `\\`). A line is at most
/// ``maximumLength`` bytes and ``maximumWords`` words. An unterminated quote leaves the line
/// unparsed (`nil`), as does anything over the limits.
public enum NUTLine {
    /// The longest line accepted, newline excluded (bytes).
    public static let maximumLength = 1024
    /// The most words a line may have.
    public static let maximumWords = 32

    /// The words of `line` (without its line ending), or `nil` when it cannot be parsed.
    public static func words(_ line: some Collection<UInt8>) -> [String]? {
        guard line.count <= maximumLength else { return nil }
        var words: [String] = []
        var current: [UInt8] = []
        var inWord = false, quoted = false, escaped = false
        for byte in line {
            if escaped {
                current.append(byte)
                escaped = false
                inWord = true
                continue
            }
            switch byte {
            case UInt8(ascii: "\\"):
                escaped = true
                inWord = true
            case UInt8(ascii: "\""):
                if quoted {
                    quoted = false
                } else {
                    quoted = true
                    inWord = true
                }
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                if quoted {
                    current.append(byte)
                } else if inWord {
                    words.append(String(decoding: current, as: UTF8.self))
                    current.removeAll(keepingCapacity: true)
                    inWord = false
                    guard words.count <= maximumWords else { return nil }
                }
            default:
                current.append(byte)
                inWord = true
            }
        }
        guard !quoted, !escaped else { return nil }
        if inWord { words.append(String(decoding: current, as: UTF8.self)) }
        return words.count <= maximumWords ? words : nil
    }

    /// `text` for a quoted reply field: `\` and `"` get a backslash, as upsd escapes them.
    public static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 4)
        for character in text {
            if character == "\\" || character == "\"" { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
