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
            guard let lineEnd = findLineEnd(bytes, from: index) else {
                return bytes.count - index > 1024 ? .failure(.bad("chunk size line too long")) : .needMore
            }
            guard case .success(let line) = lineEnd else {
                if case .failure(let error) = lineEnd { return .failure(error) }
                return .needMore
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

    /// The line starting at `start` without its CRLF; `nil` when no LF has arrived yet.
    private static func findLineEnd(_ bytes: UnsafeRawBufferPointer,
                                    from start: Int) -> Swift.Result<Range<Int>, HTTPParseError>? {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                guard index > start, bytes[index - 1] == UInt8(ascii: "\r") else {
                    return .failure(.bad("bare LF in chunked body at offset \(index)"))
                }
                return .success(start..<index - 1)
            }
            if byte == 0 { return .failure(.bad("NUL byte in chunked framing at offset \(index)")) }
            index += 1
        }
        return nil
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
        while true {
            if index - start > limits.maxHeaderBytes {
                return .failure(HTTPParseError(status: 431, reason: "trailer section exceeds \(limits.maxHeaderBytes) bytes"))
            }
            guard let lineEnd = findLineEnd(bytes, from: index) else {
                return bytes.count - start > limits.maxHeaderBytes
                    ? .failure(HTTPParseError(status: 431, reason: "trailer section exceeds \(limits.maxHeaderBytes) bytes"))
                    : .needMore
            }
            let line: Range<Int>
            switch lineEnd {
            case .failure(let error): return .failure(error)
            case .success(let range): line = range
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
