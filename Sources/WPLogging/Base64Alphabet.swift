/// The standard base64 alphabet (RFC 4648 §4), shared by the parsers that read base64 without
/// Foundation: the redactor's `Basic` credential scan and WPServer's basic authentication.
package enum Base64Alphabet {
    /// The 6-bit value of an alphabet character; `nil` for `=` and every other byte.
    package static func value(of byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
