import WPText

/// User and password from an `Authorization: Basic ...` header value.
struct BasicCredentials {
    var user: String
    var password: String

    /// Parses `Basic base64(user:password)`; nil for any other scheme or malformed input.
    init?(header: String) {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "basic " else { return nil }
        let encoded = trimmed.dropFirst(6).drop { $0 == " " }
        guard let decoded = Base64.decoded(encoded),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        user = String(decoding: decoded[..<colon], as: UTF8.self)
        password = String(decoding: decoded[(colon + 1)...], as: UTF8.self)
    }
}
