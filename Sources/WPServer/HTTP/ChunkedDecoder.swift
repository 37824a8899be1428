/// Decodes a `Transfer-Encoding: chunked` request body (RFC 9112 §7.1) incrementally.
///
/// It keeps its place between calls: every byte of the framing and of the chunk data is
/// examined once, whatever the size of the reads it arrives in, so decoding is linear in the
/// body's size on the wire. The body limit counts wire bytes (chunk size lines, extensions,
/// CRLFs and trailers included), so a body of tiny chunks with long extensions is refused as
/// soon as its framing alone passes the limit. The trailer section is validated and discarded.
struct ChunkedDecoder: Sendable, Equatable {
    enum Step: Equatable {
        case needMore
        /// The body is complete; `end` is the offset just past its last byte.
        case done(end: Int)
        case failure(HTTPParseError)
    }

    private enum State: Equatable {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailer(sectionStart: Int)
        case finished(end: Int)
    }

    /// Longest accepted chunk size line (size plus extensions).
    static let maxSizeLine = 1024

    let start: Int
    let limits: HTTPParserLimits
    /// The decoded body so far.
    private(set) var body: [UInt8] = []
    /// Bytes examined so far: the work done, for tests that check it stays linear.
    private(set) var examined = 0
    private var position: Int
    private var lineStart: Int
    private var state = State.sizeLine

    /// A decoder for a body whose first byte is at offset `start` of the buffer.
    init(start: Int, limits: HTTPParserLimits) {
        self.start = start
        self.limits = limits
        self.position = start
        self.lineStart = start
    }

    /// Decodes the bytes that arrived since the last call. `bytes` must hold everything from
    /// the buffer's start and only grow between calls.
    mutating func advance(_ bytes: UnsafeRawBufferPointer) -> Step {
        while true {
            if position - start > limits.maxBodyBytes { return .failure(Self.tooLarge(limits)) }
            switch state {
            case .finished(let end):
                return .done(end: end)
            case .sizeLine:
                switch scanLine(bytes, maxLength: Self.maxSizeLine) {
                case .needMore: return .needMore
                case .failure(let error): return .failure(error)
                case .line(let line):
                    let size: Int
                    switch Self.parseSizeLine(bytes, line) {
                    case .failure(let error): return .failure(error)
                    case .success(let value): size = value
                    }
                    if size == 0 {
                        state = .trailer(sectionStart: position)
                    } else if size > limits.maxBodyBytes - (position - start) {
                        return .failure(Self.tooLarge(limits))
                    } else {
                        state = .data(remaining: size)
                    }
                }
            case .data(let remaining):
                let take = min(remaining, bytes.count - position)
                if take > 0 {
                    body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<position + take]))
                    position += take
                    examined += take
                }
                guard take == remaining else {
                    state = .data(remaining: remaining - take)
                    return .needMore
                }
                state = .dataEnd
            case .dataEnd:
                guard bytes.count - position >= 2 else { return .needMore }
                examined += 2
                guard bytes[position] == UInt8(ascii: "\r"), bytes[position + 1] == UInt8(ascii: "\n") else {
                    return .failure(.bad("chunk data not followed by CRLF at offset \(position)"))
                }
                position += 2
                lineStart = position
                state = .sizeLine
            case .trailer(let sectionStart):
                let budget = limits.maxHeaderBytes - (lineStart - sectionStart)
                guard budget >= 0 else { return .failure(Self.trailersTooLarge(limits)) }
                switch scanLine(bytes, maxLength: budget) {
                case .needMore: return .needMore
                case .failure(let error): return .failure(error)
                case .line(let line):
                    if line.isEmpty {
                        state = .finished(end: position)
                    } else if case .failure(let error) = HTTPRequestParser.parseFieldLine(bytes, line, what: "trailer line") {
                        return .failure(error)
                    }
                }
            }
        }
    }

    private enum LineScan { case needMore, line(Range<Int>), failure(HTTPParseError) }

    /// Scans on from where the last call stopped for the CRLF ending the line at `lineStart`;
    /// on success `position` and `lineStart` move past it.
    private mutating func scanLine(_ bytes: UnsafeRawBufferPointer, maxLength: Int) -> LineScan {
        while position < bytes.count {
            let byte = bytes[position]
            examined += 1
            if byte == UInt8(ascii: "\n") {
                guard position > lineStart, bytes[position - 1] == UInt8(ascii: "\r") else {
                    return .failure(.bad("bare LF in chunked body at offset \(position)"))
                }
                let line = lineStart..<position - 1
                position += 1
                lineStart = position
                return .line(line)
            }
            if byte == 0 { return .failure(.bad("NUL byte in chunked framing at offset \(position)")) }
            position += 1
            // Checked at every byte, so the answer never depends on where the reads ended.
            if position - start > limits.maxBodyBytes { return .failure(Self.tooLarge(limits)) }
            if position - lineStart > maxLength + 1 {
                if case .trailer = state { return .failure(Self.trailersTooLarge(limits)) }
                return .failure(.bad("chunk size line longer than \(maxLength) bytes at offset \(lineStart)"))
            }
        }
        return .needMore
    }

    static func tooLarge(_ limits: HTTPParserLimits) -> HTTPParseError {
        HTTPParseError(status: 413, reason: "chunked body exceeds \(limits.maxBodyBytes) bytes on the wire")
    }

    private static func trailersTooLarge(_ limits: HTTPParserLimits) -> HTTPParseError {
        HTTPParseError(status: 431, reason: "trailer section exceeds \(limits.maxHeaderBytes) bytes")
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

    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
