// libFuzzer target for reading the claims of WinPower's login token (JWT payload) and the
// lifetime taken from them. Built by scripts/fuzz.sh jwt-payload together with the client's
// decoding sources (not part of the package build).
//
// Each input is tried as a whole token, and as the payload segment of a token (base64url
// encoded here), so the fuzzer reaches the JSON behind the base64 layer. Whatever the claims
// say, the lifetime is positive and at most 24 hours.

import FoundationEssentials

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWTPayload(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let decoder = DeviceListDecoder()
    let payload = Data(bytes).base64EncodedString()
        .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    for token in [String(decoding: bytes, as: UTF8.self), "eyJhbGciOiJIUzUxMiJ9.\(payload).c2lnbmF0dXJl"] {
        let claims = decoder.tokenClaims(token) ?? TokenClaims()
        let lifetime = claims.lifetime(fallback: .seconds(1800)).lifetime
        if lifetime <= .zero || lifetime > .seconds(86_400) {
            fatalError("token lifetime \(lifetime) outside (0, 24h]")
        }
    }
    return 0
}
