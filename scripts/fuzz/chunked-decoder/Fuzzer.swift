// libFuzzer target for the incremental chunked body decoder. Built by
// scripts/fuzz.sh chunked-decoder together with the files in ./sources.
//
// The input is a chunked body (from its first size line). Besides "never crash", it checks:
// - feeding the bytes one read at a time (read sizes chosen by the input) gives the same
//   result as feeding them at once, and the decoded body is the same;
// - no byte is examined twice (linear work), and
// - a body is never longer than the wire bytes it came in, which stay within the limit.

let fuzzLimits = HTTPParserLimits(maxHeaderBytes: 512, maxHeaderCount: 16, maxBodyBytes: 2048)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkedDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    var whole = ChunkedDecoder(start: 0, limits: fuzzLimits)
    let result = whole.advance(bytes)
    if whole.examined > size { fatalError("examined \(whole.examined) of \(size) bytes") }
    if case .done(let end) = result {
        if end > size || end > fuzzLimits.maxBodyBytes { fatalError("end \(end) beyond the input or the limit") }
        if whole.body.count > end { fatalError("decoded \(whole.body.count) bytes from \(end) on the wire") }
    }
    if case .failure(let error) = result, ![400, 413, 431].contains(error.status) {
        fatalError("unexpected status \(error.status)")
    }

    // The same bytes in reads of 1...16 bytes, sizes taken from the input itself.
    var pieces = ChunkedDecoder(start: 0, limits: fuzzLimits)
    var end = 0
    var step = ChunkedDecoder.Step.needMore
    var turn = 0
    while end < size {
        end = min(size, end + 1 + Int(bytes[turn % size] & 15))
        turn += 1
        step = pieces.advance(UnsafeRawBufferPointer(rebasing: bytes[..<end]))
        if case .needMore = step { continue }
        break
    }
    if size > 0, step != result { fatalError("read sizes changed the result: \(step) vs \(result)") }
    if case .done = step, pieces.body != whole.body { fatalError("read sizes changed the body") }
    if pieces.examined > size { fatalError("examined \(pieces.examined) of \(size) bytes in pieces") }
    return 0
}
