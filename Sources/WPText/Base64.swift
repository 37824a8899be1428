/// Base64 (RFC 4648), written once without Foundation: the standard alphabet with padding
/// (basic authentication, a notification's signature) and the URL alphabet without it (a JWT's
/// segments, the Pushgateway's `@base64` label values); the alphabet alone for the redactor's
/// scan of `Basic` credentials.
package enum Base64 {
    private static let standardDigits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlDigits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The 6-bit value of an alphabet character (`+` and `/`, or with `url` `-` and `_`); `nil`
    /// for `=` and every other byte.
    package static func value(of byte: UInt8, url: Bool = false) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+") where !url, UInt8(ascii: "-") where url: 62
        case UInt8(ascii: "/") where !url, UInt8(ascii: "_") where url: 63
        default: nil
        }
    }

    /// `bytes` in base64: the standard alphabet padded with `=` to a multiple of four, or with
    /// `url` the URL alphabet without padding (RFC 4648 §5, as JWTs and the Pushgateway write it).
    package static func encoded(_ bytes: some Collection<UInt8>, url: Bool = false) -> String {
        let digits = url ? urlDigits : standardDigits
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            let count = third != nil ? 4 : second != nil ? 3 : 2
            for index in 0..<4 {
                if index < count {
                    out.append(digits[Int(group >> UInt32(18 - 6 * index) & 0x3F)])
                } else if !url {
                    out.append(UInt8(ascii: "="))
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` decoded from base64 (with `url`, the URL alphabet), padding optional; `nil` when
    /// a character is outside the alphabet, one follows `=`, more than two `=` end it, or a
    /// lone character is left over (a length of 4n + 1, which no bytes encode to).
    package static func decoded(_ text: some StringProtocol, url: Bool = false) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard let value = value(of: byte, url: url), padding == 0 else { return nil }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard padding <= 2, bits != 6 else { return nil }
        return output
    }
}
