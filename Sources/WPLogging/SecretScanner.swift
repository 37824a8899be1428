import WPText

/// The byte-level matching behind ``Redactor``: registered secrets, `Bearer` and `Basic`
/// credentials, and the password of a URL's user information.
enum SecretScanner {
    /// `text` with each pattern that stands as a value, each Bearer or Basic credential and
    /// each URL userinfo password replaced by `***`.
    ///
    /// A pattern stands as a value when it starts the text or follows a separator
    /// (``isSeparator(_:)``: a blank, a control character, a quote, `=`, `:`, `,`, `;`, `/`,
    /// `\`, `@`, `&`, `?`, `#`, `|` or a bracket), and ends the text, precedes a separator, or
    /// precedes a `.` or `!` that ends the text or precedes one (the end of a sentence). So a
    /// secret is masked in `password=x`, `"x"`, `user:x@host`, `a=x&b` and `is x.`, and never
    /// inside a word or a number: with the secret `x`, `exporter` and `0x1F` are left alone.
    /// Patterns must be non-empty and sorted longest first. Returns `text` itself when nothing
    /// matched, without allocating.
    static func mask(_ text: String, patterns: [[UInt8]]) -> String {
        var text = text
        return text.withUTF8 { bytes -> String? in
            mask(bytes, patterns: patterns)
        } ?? text
    }

    private static func mask(_ bytes: UnsafeBufferPointer<UInt8>, patterns: [[UInt8]]) -> String? {
        var out: [UInt8]? = nil
        var copied = 0 // bytes before this index are already in `out` (or need no copy yet)
        var index = 0
        let count = bytes.count
        var region = URLRegion()
        while index < count {
            var matched = 0      // bytes of input consumed by a match at `index`
            var keep = 0         // leading bytes of the match to keep verbatim (the `Bearer ` part)
            if index == 0 || isSeparator(bytes[index - 1]) {
                for pattern in patterns where pattern.count <= count - index && pattern[0] == bytes[index] {
                    if matches(bytes, at: index, pattern), endsValue(bytes, at: index + pattern.count) {
                        matched = pattern.count
                        break
                    }
                }
            }
            if matched == 0, let (prefix, tokenLength) = authorization(bytes, at: index) {
                matched = prefix + tokenLength
                keep = prefix
            }
            if matched == 0, let (prefix, passwordLength) = userInfoPassword(bytes, at: index, &region) {
                matched = prefix + passwordLength
                keep = prefix
            }
            if matched == 0 {
                index += 1
                continue
            }
            if out == nil { out = []; out?.reserveCapacity(count) }
            out?.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<(index + keep)]))
            out?.append(contentsOf: Redactor.mask.utf8)
            index += matched
            copied = index
        }
        guard var result = out else { return nil }
        result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<count]))
        return String(decoding: result, as: UTF8.self)
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ pattern: [UInt8]) -> Bool {
        for offset in 0..<pattern.count where bytes[index + offset] != pattern[offset] { return false }
        return true
    }

    /// Whether a value that ends just before `end` ends there: at the end of the text, before a
    /// separator, or before a `.` or `!` closing a sentence (followed by the end or a separator).
    private static func endsValue(_ bytes: UnsafeBufferPointer<UInt8>, at end: Int) -> Bool {
        guard end < bytes.count else { return true }
        let next = bytes[end]
        if isSeparator(next) { return true }
        guard next == UInt8(ascii: ".") || next == UInt8(ascii: "!") else { return false }
        return end + 1 == bytes.count || isSeparator(bytes[end + 1])
    }

    /// Bytes that separate values in log text: blanks and control characters, quotes, and the
    /// punctuation of key=value pairs, URLs, query strings, JSON and lists. Letters, digits,
    /// bytes of non-ASCII characters and `.`, `-`, `_`, `+`, `~`, `%`, `*`, `!`, `$` are not:
    /// they join the parts of one word, number, address or host name.
    static func isSeparator(_ byte: UInt8) -> Bool {
        byte < 64 ? separatorsLow & (1 << UInt64(byte)) != 0
            : byte < 128 && separatorsHigh & (1 << UInt64(byte - 64)) != 0
    }

    /// ``isSeparator(_:)`` as a bit per ASCII byte: bytes 0–63, then 64–127.
    private static let (separatorsLow, separatorsHigh): (UInt64, UInt64) = {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for byte in Array(UInt8(0)...0x20) + Array("\"'`=:,;/\\@&?#|()[]{}<>\u{7F}".utf8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        return (low, high)
    }()

    /// `secret` itself, percent-encoded (every byte outside RFC 3986 unreserved characters as
    /// `%XX`, upper-case hex), and JSON-escaped. Duplicates collapse in the caller's set.
    static func variants(of secret: [UInt8]) -> [[UInt8]] {
        var percent: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in secret {
            if isUnreserved(byte) {
                percent.append(byte)
            } else {
                percent += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        var json: [UInt8] = []
        secret.withUnsafeBufferPointer { TextEscaping.append($0, quoting: .quoted, to: &json) }
        return [secret, percent, json]
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
            || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }

    /// The HTTP authentication schemes whose credentials follow them in clear or base64.
    private static let schemes: [[UInt8]] = [Array("bearer".utf8), Array("basic".utf8)]

    /// At `index`, `Bearer` + blanks + a token (RFC 6750 b64token characters), or `Basic` +
    /// blanks + base64 that decodes to `user:password`? Returns the length of the `Bearer `
    /// prefix and of the credentials. `Basic` followed by an ordinary word ("basic auth") is
    /// left alone: its base64 decoding holds no colon.
    private static func authorization(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Int, Int)? {
        guard bytes[index] | 0x20 == UInt8(ascii: "b") else { return nil }
        if index > 0, isWordByte(bytes[index - 1]) { return nil }
        guard let scheme = schemes.first(where: { startsWithIgnoringCase(bytes, at: index, $0) }) else { return nil }
        var cursor = index + scheme.count
        while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
        guard cursor > index + scheme.count else { return nil }
        let tokenStart = cursor
        while cursor < bytes.count, isTokenByte(bytes[cursor]) { cursor += 1 }
        guard cursor > tokenStart else { return nil }
        if scheme == schemes[1], !decodesToUserAndPassword(UnsafeBufferPointer(rebasing: bytes[tokenStart..<cursor])) {
            return nil
        }
        return (tokenStart - index, cursor - tokenStart)
    }

    /// Whether `text` is base64 whose decoded bytes contain a colon, as `user:password` does.
    private static func decodesToUserAndPassword(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var bits: UInt32 = 0
        var bitCount = 0
        for byte in text where byte != UInt8(ascii: "=") {
            guard let value = Base64.value(of: byte) else { return false }
            bits = (bits << 6 | value) & 0xFFFF
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                if (bits >> UInt32(bitCount)) & 0xFF == UInt32(UInt8(ascii: ":")) { return true }
            }
        }
        return false
    }

    private static func startsWithIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ word: [UInt8]) -> Bool {
        guard bytes.count - index > word.count else { return false }
        for offset in 0..<word.count where bytes[index + offset] | 0x20 != word[offset] { return false }
        return true
    }

    /// The stretch of text a URL at some `://` may span: up to the first byte that cannot be in
    /// a URL written in text (``endsURL(_:)``), and the last `@` before it. Kept between calls
    /// so that text full of `://` is scanned once, not once per `://`.
    struct URLRegion {
        /// Index of the byte that ends the region (or the text's length); -1 before the first.
        var end = -1
        /// Index of the last `@` in the region, if any.
        var lastAt: Int?
    }

    /// At `index`, the `://` of a URL whose user information holds `user:password@`? Returns
    /// the length from `index` to the password's first byte and the password's length
    /// (non-empty).
    ///
    /// The user information ends at the **last** `@` before the URL ends (a blank, a control
    /// character, `"`, `<` or `>`), so a password holding `/`, `?`, `#`, `@` or any other
    /// reserved character is masked whole (`http://admin:***@host`). The user name runs to the
    /// first `:` and may not hold `/`, `?`, `#`, `[` or `]`: in `http://host/a:b@c` and
    /// `http://[::1]/x?a:b@c` the `@` is in the path or query, and nothing is masked. A URL
    /// whose host has a port and whose path or query holds an `@` (`http://h:80/p?m=a@b`)
    /// cannot be told from a password holding `/`; it is masked, the safe reading.
    private static func userInfoPassword(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int,
                                         _ region: inout URLRegion) -> (Int, Int)? {
        guard bytes[index] == UInt8(ascii: ":"), bytes.count - index > 3,
              bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else { return nil }
        let start = index + 3
        if start > region.end {
            region = URLRegion(end: start, lastAt: nil)
            while region.end < bytes.count, !endsURL(bytes[region.end]) {
                if bytes[region.end] == UInt8(ascii: "@") { region.lastAt = region.end }
                region.end += 1
            }
        }
        guard let at = region.lastAt, at > start else { return nil }
        var colon = start
        while colon < at, bytes[colon] != UInt8(ascii: ":") {
            if endsUserName(bytes[colon]) { return nil }
            colon += 1
        }
        guard colon + 1 < at else { return nil }
        return (colon + 1 - index, at - colon - 1)
    }

    /// Bytes that cannot be part of a URL written in text: blanks, control characters, `"`,
    /// `<` and `>` (RFC 3986 appendix C's delimiters of URLs in text).
    private static func endsURL(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
    }

    /// Bytes that end a URL's authority before any `@` could: a user name holding one means the
    /// `@` is in the path, query or fragment, or the host is an IPv6 literal.
    static func endsUserName(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
            || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
    }

    /// RFC 6750 b64token: ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" then "="s.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isWordByte(byte) || byte == 0x2D || byte == 0x2E || byte == 0x7E || byte == 0x2B || byte == 0x2F || byte == 0x3D
    }
}
