import WPText
import WPRuntime

/// Command lines of the NUT network protocol split into words exactly as upsd 2.8.0 splits them
/// (its configuration-file tokenizer), and reply values escaped as upsd escapes them.
///
/// Words are separated by blanks; a word may be quoted (`"with space"`, `""` is an empty
/// word); a backslash takes the next byte literally, inside quotes or not; `#` outside quotes
/// starts a comment; `=` is a word of its own. A quote left open continues on the next line (the
/// newline dropped), as does a line ending in a backslash. Bytes below 0x20 and above 0x7F
/// vanish from words; a word keeps its first ``maximumWordLength`` bytes, a line its first
/// ``maximumWords`` words. A `#` inside quotes makes the line a parse error (no reply).
package enum NUTLine {
    /// The most words a line keeps; later ones are dropped.
    package static let maximumWords = 32
    /// The most bytes a word keeps; the rest are dropped.
    package static let maximumWordLength = 512

    /// What a line (a run of bytes ending in a newline) amounts to.
    package enum Outcome: Equatable, Sendable {
        /// A complete line and its words (none for an empty line or a comment).
        case words([String])
        /// The line continues on the next one: a quote is open, or it ended in a backslash.
        case continued
        /// A `#` inside quotes: the line is dropped, unanswered.
        case parseError
    }

    /// The tokenizer's state between bytes; kept by a session across lines.
    package struct Tokenizer: Sendable {
        private enum State: Sendable { case wordStart, collect, collectLiteral, quoted, quotedLiteral, comment }

        private var state = State.wordStart
        private var words: [String] = []
        private var current: [UInt8] = []

        package init() {}

        /// Feeds one line without its newline, then the newline.
        package mutating func line(_ bytes: some Collection<UInt8>) -> Outcome {
            for byte in bytes {
                if let outcome = feed(byte) { return outcome }
            }
            return feed(UInt8(ascii: "\n")) ?? .continued
        }

        /// Feeds one byte; the outcome when it ends a line or makes it a parse error.
        private mutating func feed(_ byte: UInt8) -> Outcome? {
            let newline = UInt8(ascii: "\n")
            let blank = byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == 0x0B || byte == 0x0C
            switch state {
            case .wordStart:
                switch byte {
                case newline: return finish()
                case UInt8(ascii: "#"): state = .comment
                case _ where blank: break
                case UInt8(ascii: "\\"): state = .collectLiteral
                case UInt8(ascii: "\""): state = .quoted
                case UInt8(ascii: "="): emit(Array("=".utf8))
                default:
                    add(byte)
                    state = .collect
                }
            case .collect:
                switch byte {
                case newline:
                    endWord()
                    return finish()
                case UInt8(ascii: "#"):
                    endWord()
                    state = .comment
                case _ where blank:
                    endWord()
                    state = .wordStart
                case UInt8(ascii: "\\"): state = .collectLiteral
                case UInt8(ascii: "="):
                    endWord()
                    emit(Array("=".utf8))
                    state = .wordStart
                default: add(byte)
                }
            case .collectLiteral:
                // A backslash before the newline continues the line; anything else is literal.
                if byte != newline { add(byte) }
                state = .collect
            case .quoted:
                switch byte {
                case UInt8(ascii: "#"):
                    reset()
                    return .parseError
                case UInt8(ascii: "\\"): state = .quotedLiteral
                case UInt8(ascii: "\""):
                    endWord(evenIfEmpty: true)
                    state = .wordStart
                default: add(byte)   // a newline (a control byte) vanishes: the quote stays open
                }
            case .quotedLiteral:
                if byte != newline { add(byte) }
                state = .quoted
            case .comment:
                if byte == newline { return finish() }
            }
            return nil
        }

        /// Keeps `byte` in the word unless it is a control or non-ASCII byte, or the word is full.
        private mutating func add(_ byte: UInt8) {
            guard byte >= 0x20, byte <= 0x7F, current.count < NUTLine.maximumWordLength else { return }
            current.append(byte)
        }

        private mutating func endWord(evenIfEmpty: Bool = false) {
            if !current.isEmpty || evenIfEmpty { emit(current) }
            current.removeAll(keepingCapacity: true)
        }

        private mutating func emit(_ word: [UInt8]) {
            if words.count < NUTLine.maximumWords { words.append(String(decoding: word, as: UTF8.self)) }
        }

        private mutating func finish() -> Outcome {
            defer { reset() }
            return .words(words)
        }

        private mutating func reset() {
            state = .wordStart
            words = []
            current.removeAll(keepingCapacity: true)
        }
    }

    /// The words of one complete line (without its line ending), or `nil` when it does not end
    /// there (an open quote, a final backslash) or is a parse error.
    package static func words(_ line: some Collection<UInt8>) -> [String]? {
        var tokenizer = Tokenizer()
        guard case .words(let words) = tokenizer.line(line) else { return nil }
        return words
    }

    /// `text` for a quoted reply field: `\`, `"` and `#` get a backslash, as upsd escapes them.
    package static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "#") })
        else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 4)
        for character in text {
            if character == "\\" || character == "\"" || character == "#" { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// The most bytes of a reply line NUT's own clients read whole, its newline included:
    /// upsclient (`upsc`, `upsmon`, `upsrw`) reads a line into a buffer of `UPSCLI_NETBUF_LEN`
    /// (512) bytes, at most 511 of them before the newline, and a longer line is split into two
    /// that it cannot parse: `upsc -l` then stops listing in silence. PyNUT, aionut and
    /// Home Assistant read whole lines; 511 bytes fit them all.
    package static let maximumReplyLine = 511

    /// `head "value"` and a newline, `value` made printable and escaped, and cut (ending in
    /// `...`) so the line fits ``maximumReplyLine``; never in the middle of an escape.
    package static func quotedLine(_ head: String, _ value: String) -> String {
        let text = printable(value)
        // head, a blank, two quotes and the newline around the value.
        let budget = maximumReplyLine - head.utf8.count - 4
        var escapedCount = 0
        for byte in text.utf8 { escapedCount += byte == UInt8(ascii: "#") ? 2 : 1 }
        if escapedCount <= budget { return head + " \"" + escaped(text) + "\"\n" }
        var kept: [UInt8] = []
        var used = 0
        for byte in text.utf8 {
            let width = byte == UInt8(ascii: "#") ? 2 : 1
            if used + width > budget - 3 { break }
            if width == 2 { kept.append(UInt8(ascii: "\\")) }
            kept.append(byte)
            used += width
        }
        return head + " \"" + String(decoding: kept, as: UTF8.self) + "...\"\n"
    }

    /// `text` in printable ASCII, as every value and description goes on the wire (aionut, Home
    /// Assistant's library, decodes replies as ASCII and fails on the whole UPS otherwise):
    /// spelled as `ASCIIText` spells it (Chinese in pinyin, `机房 A` → `jifang A`; a character
    /// without an ASCII spelling, control and bidirectional formatting characters among them,
    /// as `?`); `"` and `\` become `'` and `/` (PyNUT splits reply lines at every quote, escaped
    /// or not).
    package static func printable(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return text }
        return String(ASCIIText.transliterated(text).map { character -> Character in
            switch character {
            case "\"": "'"
            case "\\": "/"
            default: character
            }
        })
    }
}
