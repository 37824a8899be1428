import Foundation

/// JWTs shaped like WinPower's, built for tests: synthetic ids, an unusable signature.
enum TokenFactory {
    /// `header.payload.signature` with `payload` (JSON text) base64url-encoded.
    static func jwt(payload: String, header: String = #"{"alg":"HS512"}"#) -> String {
        [base64URL(header), base64URL(payload), base64URL("synthetic-signature-not-real")].joined(separator: ".")
    }

    /// A token with the real claim set, issued at `issued` on the server's clock and living
    /// `lifetime` seconds; `exp` in milliseconds (with `typ` and `nbf`, like newer builds) or
    /// seconds (like older ones).
    static func real(issued: Date, lifetime: Int, expInMilliseconds: Bool, typ: Bool) -> String {
        let issuedMs = Int64(issued.timeIntervalSince1970 * 1000)
        let expiresMs = issuedMs + Int64(lifetime) * 1000
        let exp = expInMilliseconds ? expiresMs : expiresMs / 1000
        let payload = #"{"create_time_key":\#(issuedMs),"#
            + (expInMilliseconds ? #""nbf":\#(issuedMs + 5),"# : "")
            + #""token_id":"3f0c2a52-0d6e-4b8e-9a51-2b7c1e9d4a10","login_user_type":"SysAdmin","#
            + #""login_user_id":"00000000-0000-0000-0000-000000000000","expire_time_key":\#(expiresMs),"#
            + #""tokenExpiredMinutes":\#((lifetime + 59) / 60),"jti":"9b1d7c3e-5f2a-4c8b-a6e4-0d1f2e3c4b5a","#
            + #""exp":\#(exp),"iat":\#(issuedMs / 1000),"sub":"WINPOWER_TOKEN","iss":"WINPOWER"}"#
        return jwt(payload: payload, header: typ ? #"{"typ":"JWT","alg":"HS512"}"# : #"{"alg":"HS512"}"#)
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacing("=", with: "").replacing("+", with: "-").replacing("/", with: "_")
    }
}
