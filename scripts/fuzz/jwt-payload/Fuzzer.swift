// libFuzzer target for reading the `exp` claim of WinPower's login token (JWT payload). Built
// by scripts/fuzz.sh jwt-payload together with the client's decoding sources (not part of the
// package build).
//
// Each input is tried as a whole token, and as the payload segment of a token (base64url
// encoded here), so the fuzzer reaches the JSON behind the base64 layer.

import FoundationEssentials

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWTPayload(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let decoder = DeviceListDecoder()
    _ = decoder.jwtExpiry(String(decoding: bytes, as: UTF8.self))
    let payload = Data(bytes).base64EncodedString()
        .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    let expiry = decoder.jwtExpiry("eyJhbGciOiJIUzI1NiJ9.\(payload).c2lnbmF0dXJl")
    if let expiry, expiry.isNaN { fatalError("exp decoded as NaN") }
    return 0
}
