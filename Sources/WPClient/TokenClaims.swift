import WPText
import WPRuntime

/// The lifetime claims of a WinPower login token (an HS512 JWT), read without checking the
/// signature (no key is known).
///
/// Real tokens carry `create_time_key` and `expire_time_key` (ms), `tokenExpiredMinutes`,
/// `iat` (s) and `exp` (s on older server builds, ms on newer ones). Every number is the
/// server's clock, which is not ours: only differences between claims are used (see
/// ``lifetime``), never a claim compared with our wall clock.
package struct TokenClaims: Sendable, Equatable {
    /// `exp` as sent: Unix seconds or milliseconds.
    package var exp: Double?
    /// `iat` as sent (Unix seconds on every build seen; milliseconds are accepted too).
    package var iat: Double?
    /// `create_time_key`: issue time in Unix milliseconds.
    package var createTime: Double?
    /// `expire_time_key`: expiry in Unix milliseconds.
    package var expireTime: Double?
    /// `tokenExpiredMinutes`: the server's configured lifetime.
    package var expiredMinutes: Double?

    package init(exp: Double? = nil, iat: Double? = nil, createTime: Double? = nil, expireTime: Double? = nil,
                expiredMinutes: Double? = nil) {
        self.exp = exp
        self.iat = iat
        self.createTime = createTime
        self.expireTime = expireTime
        self.expiredMinutes = expiredMinutes
    }

    /// Which claims a lifetime came from.
    package enum Source: String, Sendable {
        /// `exp − iat`.
        case expIat = "exp-iat"
        /// `expire_time_key − create_time_key`.
        case timeKeys = "expire_time_key-create_time_key"
        /// `tokenExpiredMinutes`.
        case expiredMinutes = "tokenExpiredMinutes"
        /// No usable claim: the configured default.
        case assumed = "default"
    }

    /// The longest lifetime believed from a claim: 24 hours.
    package static let longestLifetime: Duration = .seconds(86_400)

    /// The token's lifetime from its own claims, in this order: `exp − iat` (each read as
    /// seconds or milliseconds by magnitude), `expire_time_key − create_time_key`,
    /// `tokenExpiredMinutes`, else `fallback`. A difference that is not positive and finite is
    /// skipped; the result is capped at ``longestLifetime``.
    package func lifetime(fallback: Duration) -> (lifetime: Duration, source: Source) {
        let candidates: [(Double?, Source)] = [
            // `iat` is whole seconds (truncated): with a millisecond `exp` the difference is up to
            // 1 s long, so it is rounded down to whole seconds.
            (Self.difference(exp.map(Self.seconds), iat.map(Self.seconds))?.rounded(.down), .expIat),
            (Self.difference(expireTime.map { $0 / 1000 }, createTime.map { $0 / 1000 }), .timeKeys),
            (expiredMinutes.map { $0 * 60 }, .expiredMinutes),
        ]
        for case (let seconds?, let source) in candidates where seconds.isFinite && seconds > 0 {
            let capped = Swift.min(seconds, Self.longestLifetime.inSeconds)
            return (.milliseconds(Int64((capped * 1000).rounded(.down))), source)
        }
        return (Swift.min(fallback, Self.longestLifetime), .assumed)
    }

    /// A Unix time in seconds, from seconds or milliseconds: a value above 10^11 (the year
    /// 5138 in seconds, March 1973 in milliseconds) is milliseconds.
    static func seconds(_ value: Double) -> Double {
        Swift.abs(value) > 1e11 ? value / 1000 : value
    }

    private static func difference(_ end: Double?, _ start: Double?) -> Double? {
        guard let end, let start else { return nil }
        return end - start
    }
}

extension DeviceListDecoder {
    /// The lifetime claims of a JWT, or `nil` when no segment is a base64url JSON object
    /// carrying one of them. The payload is normally the second of three segments; every
    /// segment is tried, so a token with extra segments still reads.
    package func tokenClaims(_ token: String) -> TokenClaims? {
        for segment in token.split(separator: ".") where segment.count >= 8 {
            // JWTs use the URL alphabet (RFC 7515); a token in the standard one reads too.
            guard let bytes = Base64.decoded(segment, url: true) ?? Base64.decoded(segment),
                  let claims = Self.claims(in: bytes, keys: claimKeys) else { continue }
            return claims
        }
        return nil
    }

    private static func claims(in bytes: [UInt8], keys: KeyTable<ClaimKey>) -> TokenClaims? {
        bytes.withUnsafeBufferPointer { buffer -> TokenClaims? in
            var scanner = JSONScanner(buffer)
            var claims = TokenClaims()
            var found = false
            do {
                guard try scanner.peekKind() == .object else { return nil }
                try scanner.beginObject()
                var first = true
                while let key = try scanner.nextKey(first: &first) {
                    guard let claim = try keys.lookup(key, in: scanner) else {
                        try scanner.skipValue()
                        continue
                    }
                    let value = try scanner.readLooseNumber()
                    found = found || value != nil
                    switch claim {
                    case .exp: claims.exp = value
                    case .iat: claims.iat = value
                    case .createTime: claims.createTime = value
                    case .expireTime: claims.expireTime = value
                    case .tokenExpiredMinutes: claims.expiredMinutes = value
                    }
                }
            } catch {
                return nil
            }
            return found ? claims : nil
        }
    }
}

/// The JWT claims that bear on a token's lifetime, named as WinPower spells them.
enum ClaimKey: String, CaseIterable, Sendable {
    case exp, iat, tokenExpiredMinutes
    case createTime = "create_time_key"
    case expireTime = "expire_time_key"
}
