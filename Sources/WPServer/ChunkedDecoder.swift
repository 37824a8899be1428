/// Decodes a `Transfer-Encoding: chunked` request body (RFC 9112 §7.1).
///
/// Pure function over the buffered bytes; the trailer section is validated and discarded.
enum ChunkedDecoder {
    enum Result: Equatable {
        case needMore
        case done(body: [UInt8], end: Int)
        case failure(HTTPParseError)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, from start: Int, limits: HTTPParserLimits) -> Result {
        var body: [UInt8] = []
        var index = start
        while true {
            let line: Range<Int>
            switch findLineEnd(bytes, from: index, maxLength: maxSizeLine) {
            case .needMore: return .needMore
            case .tooLong: return .failure(.bad("chunk size line longer than \(maxSizeLine) bytes at offset \(index)"))
            case .failure(let error): return .failure(error)
            case .line(let range): line = range
            }
            let size: Int
            switch parseSizeLine(bytes, line) {
            case .failure(let error): return .failure(error)
            case .success(let value): size = value
            }
            index = line.upperBound + 2
            if size == 0 { return decodeTrailers(bytes, from: index, body: body, limits: limits) }
            if body.count + size > limits.maxBodyBytes {
                return .failure(HTTPParseError(status: 413, reason: "chunked body exceeds \(limits.maxBodyBytes) bytes"))
            }
            guard bytes.count - index >= size + 2 else { return .needMore }
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + size]))
            index += size
            guard bytes[index] == UInt8(ascii: "\r"), bytes[index + 1] == UInt8(ascii: "\n") else {
                return .failure(.bad("chunk data not followed by CRLF at offset \(index)"))
            }
            index += 2
        }
    }

    /// Longest accepted chunk size line (size plus extensions).
    static let maxSizeLine = 1024

    private enum LineEnd { case needMore, tooLong, line(Range<Int>), failure(HTTPParseError) }

    /// The line starting at `start` without its CRLF. Only the first `maxLength` bytes (plus
    /// CRLF) are examined, so the answer never depends on how much more has arrived.
    private static func findLineEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, maxLength: Int) -> LineEnd {
        var index = start
        let limit = min(bytes.count, start + maxLength + 2)
        while index < limit {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                guard index > start, bytes[index - 1] == UInt8(ascii: "\r") else {
                    return .failure(.bad("bare LF in chunked body at offset \(index)"))
                }
                return .line(start..<index - 1)
            }
            if byte == 0 { return .failure(.bad("NUL byte in chunked framing at offset \(index)")) }
            index += 1
        }
        return limit == start + maxLength + 2 ? .tooLong : .needMore
    }

    private static func parseSizeLine(_ bytes: UnsafeRawBufferPointer,
                                      _ line: Range<Int>) -> Swift.Result<Int, HTTPParseError> {
        var size = 0
        var index = line.lowerBound
        while index < line.upperBound, let digit = hexDigit(bytes[index]) {
            guard index - line.lowerBound < 15 else { return .failure(.bad("chunk size too large")) }
            size = size << 4 | digit
            index += 1
        }
        guard index > line.lowerBound else { return .failure(.bad("missing chunk size at offset \(line.lowerBound)")) }
        while index < line.upperBound, HTTPRequestParser.isWhitespace(bytes[index]) { index += 1 }
        if index < line.upperBound {
            guard bytes[index] == UInt8(ascii: ";") else {
                return .failure(.bad("invalid character after chunk size at offset \(index)"))
            }
            for position in index..<line.upperBound {
                let byte = bytes[position]
                if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
                    return .failure(.bad("control character in chunk extension at offset \(position)"))
                }
            }
        }
        return .success(size)
    }

    private static func decodeTrailers(_ bytes: UnsafeRawBufferPointer, from start: Int, body: [UInt8],
                                       limits: HTTPParserLimits) -> Result {
        var index = start
        let tooLarge = HTTPParseError(status: 431, reason: "trailer section exceeds \(limits.maxHeaderBytes) bytes")
        while true {
            let budget = limits.maxHeaderBytes - (index - start)
            guard budget >= 0 else { return .failure(tooLarge) }
            let line: Range<Int>
            switch findLineEnd(bytes, from: index, maxLength: budget) {
            case .needMore: return .needMore
            case .tooLong: return .failure(tooLarge)
            case .failure(let error): return .failure(error)
            case .line(let range): line = range
            }
            index = line.upperBound + 2
            if line.isEmpty { return .done(body: body, end: index) }
            if case .failure(let error) = HTTPRequestParser.parseFieldLine(bytes, line, what: "trailer line") {
                return .failure(error)
            }
        }
    }

    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
