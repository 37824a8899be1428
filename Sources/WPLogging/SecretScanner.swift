/// The byte-level matching behind ``Redactor``: registered secrets and `Bearer` tokens.
enum SecretScanner {
    /// `text` with each occurrence of any pattern, and each Bearer token, replaced by `***`.
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
        while index < count {
            var matched = 0      // bytes of input consumed by a match at `index`
            var keep = 0         // leading bytes of the match to keep verbatim (the `Bearer ` part)
            for pattern in patterns where pattern.count <= count - index && pattern[0] == bytes[index] {
                if matches(bytes, at: index, pattern) {
                    matched = pattern.count
                    break
                }
            }
            if matched == 0, let (prefix, tokenLength) = bearer(bytes, at: index) {
                matched = prefix + tokenLength
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

    private static let bearerWord: [UInt8] = Array("bearer".utf8)

    /// At `index`, `Bearer` + blanks + a token (RFC 6750 b64token characters)? Returns the
    /// length of the `Bearer ` prefix and of the token.
    private static func bearer(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Int, Int)? {
        guard bytes[index] | 0x20 == UInt8(ascii: "b"), bytes.count - index > 7 else { return nil }
        if index > 0, isWordByte(bytes[index - 1]) { return nil }
        for offset in 1..<6 where bytes[index + offset] | 0x20 != bearerWord[offset] { return nil }
        var cursor = index + 6
        while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
        guard cursor > index + 6 else { return nil }
        let tokenStart = cursor
        while cursor < bytes.count, isTokenByte(bytes[cursor]) { cursor += 1 }
        guard cursor > tokenStart else { return nil }
        return (tokenStart - index, cursor - tokenStart)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
    }

    /// RFC 6750 b64token: ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" then "="s.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isWordByte(byte) || byte == 0x2D || byte == 0x2E || byte == 0x7E || byte == 0x2B || byte == 0x2F || byte == 0x3D
    }

    /// Whether `haystack` contains `needle` ignoring ASCII case. `needle` must be lower-case
    /// ASCII starting with a letter (as the sensitive key fragments are).
    static func containsIgnoringASCIICase(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        outer: for start in 0...(haystack.count - needle.count) where haystack[start] | 0x20 == first {
            for offset in 1..<needle.count {
                var byte = haystack[start + offset]
                if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
                if byte != needle[offset] { continue outer }
            }
            return true
        }
        return false
    }
}
