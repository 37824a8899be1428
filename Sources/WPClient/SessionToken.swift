import FoundationEssentials

/// A login token and when to stop using it.
struct SessionToken: Sendable, Equatable {
    /// The bearer token. Never logged.
    var value: String
    /// Elapsed time on the client's clock at which the token expires.
    var expiresAt: Duration
    /// Elapsed time at which to renew it (before expiry).
    var renewAt: Duration
    /// The expiry as a wall-clock instant, for the `token expiry` metric.
    var wallExpiry: Date
    /// Whether the expiry came from the JWT `exp` claim (else the default lifetime).
    var fromClaim: Bool
}

extension DeviceListDecoder {
    /// The `exp` claim (Unix seconds) of a JWT, or `nil` when the token is not a readable JWT.
    ///
    /// Every dot-separated segment is tried as base64url JSON, since WinPower tokens have been
    /// seen with a doubled header segment. The signature is not checked (no key is known).
    public func jwtExpiry(_ token: String) -> Double? {
        for segment in token.split(separator: ".") where segment.count >= 8 {
            guard let bytes = Self.base64URLDecode(segment) else { continue }
            let exp: Double?? = bytes.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                do {
                    guard try scanner.peekKind() == .object else { return nil }
                    try scanner.beginObject()
                    var first = true
                    var found: Double?
                    while let key = try scanner.nextKey(first: &first) {
                        let name = try scanner.decodeEscapes(key.range)
                        if name == "exp" { found = try scanner.readLooseNumber() } else { try scanner.skipValue() }
                    }
                    return .some(found)
                } catch {
                    return nil
                }
            }
            if case .some(.some(let value)) = exp { return value }
        }
        return nil
    }

    static func base64URLDecode(_ text: Substring) -> [UInt8]? {
        var base64 = String(text).replacing("-", with: "+").replacing("_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64).map { Array($0) }
    }
}
