// libFuzzer target for the HTTP request parser. Built by scripts/fuzz.sh http-request together with
// the parser's sources (not part of the package build):
//   swiftc -sanitize=fuzzer,address -parse-as-library <the files in ./sources> Fuzzer.swift
//
// Besides "never crash", it checks two invariants on every input:
// - the answer does not depend on how the bytes were split into reads (a slow client and a
//   fast one get the same result), and
// - a request never claims more bytes than were given or a body beyond the limit,
// - the work done stays linear: no byte is examined twice, however the input is split, and
// - a parser whose route takes no body refuses any request with one from its head (413).

let fuzzLimits = HTTPParserLimits(maxHeaderBytes: 2048, maxHeaderCount: 32, maxBodyBytes: 4096)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    var whole = HTTPRequestParser(limits: fuzzLimits)
    let result = whole.parse(bytes)
    check(result, size: size)
    if whole.examined > size { fatalError("examined \(whole.examined) bytes of \(size)") }

    var bodiless = HTTPRequestParser(limits: fuzzLimits, acceptsBody: { _ in false })
    if case .request(let parsed) = bodiless.parse(bytes), !parsed.request.body.isEmpty {
        fatalError("a body reached a route that takes none")
    }

    // Same bytes in two reads, split at a point chosen by the input itself.
    if size > 1 {
        let split = Int(bytes[0]) * 7 % size
        var pieces = HTTPRequestParser(limits: fuzzLimits)
        let first = pieces.parse(UnsafeRawBufferPointer(rebasing: bytes[..<split]))
        let final: HTTPParseResult
        if case .needMore = first {
            final = pieces.parse(bytes)
        } else {
            final = first
        }
        if final != result {
            fatalError("split at \(split) changed the result: \(final) vs \(result)")
        }
        if pieces.examined > size { fatalError("examined \(pieces.examined) bytes of \(size) in two reads") }
    }

    // Pipelined requests: keep cutting requests off the front, as a connection does.
    var offset = 0
    var parser = HTTPRequestParser(limits: fuzzLimits)
    while offset < size, case .request(let parsed) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
        guard parsed.consumed > 0 else { fatalError("a request consumed no bytes") }
        offset += parsed.consumed
        parser.reset()
    }
    return 0
}

private func check(_ result: HTTPParseResult, size: Int) {
    switch result {
    case .request(let parsed):
        if parsed.consumed > size { fatalError("consumed \(parsed.consumed) of \(size) bytes") }
        if parsed.request.body.count > fuzzLimits.maxBodyBytes { fatalError("body beyond the limit") }
    case .failure(let error):
        if ![400, 413, 417, 431, 501, 505].contains(error.status) { fatalError("unexpected status \(error.status)") }
    case .needMore:
        break
    }
}
