// libFuzzer target for WPHTTPClient's response reader (what the exporter reads from WinPower).
// Built by scripts/fuzz.sh http-response together with the files in ./sources.
//
// The first input byte picks the request method (GET or HEAD) and the source's read size;
// the rest is the server's byte stream. Besides "never crash", it checks that a response
// never carries a body beyond the limit, that errors are of the documented kinds, and that
// the answer does not depend on how the stream was cut into reads. (Whether the connection
// may be reused may: bytes past the response are only noticed when a read brought them in.)

let maxHead = 1024
let maxBody = 4096

struct FuzzSource: ByteSource {
    let bytes: [UInt8]
    let readSize: Int
    var offset = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPClientError) -> Int {
        let count = min(buffer.count, readSize, bytes.count - offset)
        guard count > 0 else { return 0 }
        for index in 0..<count { buffer[index] = bytes[offset + index] }
        offset += count
        return count
    }
}

enum Outcome: Equatable {
    case response(status: Int, body: [UInt8])
    case failure(HTTPClientError.Kind)
}

func readOnce(_ bytes: [UInt8], method: String, readSize: Int) -> Outcome {
    var reader = ResponseReader(source: FuzzSource(bytes: bytes, readSize: readSize), maxHeadBytes: maxHead,
                                maxBodyBytes: maxBody)
    do {
        let parsed = try reader.read(method: method)
        return .response(status: parsed.response.status, body: parsed.response.body)
    } catch {
        return .failure(error.kind)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponseReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let control = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let method = control & 1 == 0 ? "GET" : "HEAD"
    let whole = readOnce(bytes, method: method, readSize: 1 << 16)
    switch whole {
    case .response(let status, let body):
        if body.count > maxBody { fatalError("body of \(body.count) bytes beyond the limit") }
        if !(100...999).contains(status) { fatalError("status \(status)") }
        if method == "HEAD", !body.isEmpty { fatalError("a body for HEAD") }
    case .failure(let kind):
        if ![.network, .tooLarge, .malformedResponse].contains(kind) { fatalError("unexpected error kind \(kind)") }
    }
    let pieces = readOnce(bytes, method: method, readSize: 1 + Int(control >> 1 & 15))
    if pieces != whole { fatalError("read size changed the outcome: \(pieces) vs \(whole)") }
    return 0
}
