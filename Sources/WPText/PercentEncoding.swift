/// Percent-encoding of text for a URL: the one encoder of the exporter (Pushgateway grouping
/// paths, the status pages' links); WPServer's request parser decodes.
package enum PercentEncoding {
    /// `value` with every UTF-8 byte outside the unreserved path characters (RFC 3986 `pchar`
    /// without `;`) written as `%XX`, upper-case hex; with `strict`, every byte outside the
    /// RFC 3986 unreserved characters, as a form or query encodes it.
    package static func encoded(_ value: String, strict: Bool = false) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in value.utf8 {
            if isPathAllowed(byte), !strict || !"!$&'()*+,=:@".utf8.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isPathAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,=:@".utf8.contains(byte)
        }
    }
}
