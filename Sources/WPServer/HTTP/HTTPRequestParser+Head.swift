/// Request line and header section parsing (RFC 9112 §3 and §5).
extension HTTPRequestParser {
    enum HeadResult { case success(RequestHead), failure(HTTPParseError) }

    /// Parses the head occupying `start..<end` (`end` is just past the final CRLF).
    static func parseHead(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int,
                          limits: HTTPParserLimits) -> HeadResult {
        // Lines without their CRLF; the last (empty) line is dropped.
        var lines: [Range<Int>] = []
        var lineStart = start
        var index = start
        while index < end - 2 {
            if bytes[index] == UInt8(ascii: "\r") {
                guard bytes[index + 1] == UInt8(ascii: "\n") else {
                    return .failure(.bad("bare CR in request head at offset \(index)"))
                }
                lines.append(lineStart..<index)
                lineStart = index + 2
                index += 2
                continue
            }
            index += 1
        }
        guard let requestLine = lines.first else { return .failure(.bad("empty request")) }
        let (method, target, version): (String, String, WPHTTPVersion)
        switch parseRequestLine(bytes, requestLine) {
        case .failure(let error): return .failure(error)
        case .success(let parts): (method, target, version) = parts
        }
        if lines.count - 1 > limits.maxHeaderCount {
            return .failure(HTTPParseError(status: 431, reason: "more than \(limits.maxHeaderCount) header fields"))
        }
        var headers = WPHTTPHeaders()
        for (number, line) in lines.dropFirst().enumerated() {
            switch parseField(bytes, line, what: "header line \(number + 1)") {
            case .failure(let error): return .failure(error)
            case .success(let field): headers.add(name: field.name, value: field.value)
            }
        }
        var request = WPHTTPRequest(method: method, target: target, version: version, headers: headers)
        if !target.hasPrefix("/"), let path = absoluteFormPath(target) {
            let origin = WPHTTPRequest(method: method, target: path)
            request.path = origin.path
            request.query = origin.query
        }
        switch semantics(of: headers, version: version, limits: limits) {
        case .failure(let error): return .failure(error)
        case .success(let (framing, keepAlive, expectContinue)):
            return .success(RequestHead(request: request, keepAlive: keepAlive, framing: framing,
                                        expectContinue: expectContinue, headEnd: end))
        }
    }

    private enum LineResult<T> { case success(T), failure(HTTPParseError) }

    private static func parseRequestLine(_ bytes: UnsafeRawBufferPointer,
                                         _ line: Range<Int>) -> LineResult<(String, String, WPHTTPVersion)> {
        var parts: [Range<Int>] = []
        var partStart = line.lowerBound
        for index in line where bytes[index] == UInt8(ascii: " ") {
            parts.append(partStart..<index)
            partStart = index + 1
        }
        parts.append(partStart..<line.upperBound)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            return .failure(.bad("request line is not 'METHOD SP target SP HTTP-version'"))
        }
        guard parts[0].allSatisfy({ isTokenByte(bytes[$0]) }) else {
            return .failure(.bad("invalid character in method"))
        }
        guard parts[1].allSatisfy({ bytes[$0] > 0x20 && bytes[$0] < 0x7F }) else {
            return .failure(.bad("invalid character in request target"))
        }
        let method = string(bytes, parts[0])
        let target = string(bytes, parts[1])
        let versionText = string(bytes, parts[2])
        let version: WPHTTPVersion
        switch versionText {
        case "HTTP/1.1": version = .http11
        case "HTTP/1.0": version = .http10
        default:
            let digits = Array(versionText.utf8)
            if digits.count == 8, versionText.hasPrefix("HTTP/"), digits[6] == UInt8(ascii: "."),
               [digits[5], digits[7]].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                return .failure(HTTPParseError(status: 505, reason: "HTTP version \(versionText) not supported"))
            }
            return .failure(.bad("malformed HTTP version"))
        }
        guard target.hasPrefix("/") || (target == "*" && method == "OPTIONS") || absoluteFormPath(target) != nil else {
            return .failure(.bad("request target must be origin-form or absolute-form"))
        }
        return .success((method, target, version))
    }

    /// Parses `name: value`, rejecting obs-fold, whitespace before the colon and control bytes.
    static func parseFieldLine(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>,
                               what: String) -> Result<(name: String, value: String), HTTPParseError> {
        switch parseField(bytes, line, what: what) {
        case .success(let field): return .success(field)
        case .failure(let error): return .failure(error)
        }
    }

    private static func parseField(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>,
                                   what: String) -> LineResult<(name: String, value: String)> {
        guard let first = line.first.map({ bytes[$0] }) else { return .failure(.bad("\(what): empty")) }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            return .failure(.bad("\(what): obsolete line folding is not accepted"))
        }
        guard let colon = line.first(where: { bytes[$0] == UInt8(ascii: ":") }) else {
            return .failure(.bad("\(what): missing colon"))
        }
        guard colon > line.lowerBound else { return .failure(.bad("\(what): empty field name")) }
        for index in line.lowerBound..<colon where !isTokenByte(bytes[index]) {
            let byte = bytes[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                return .failure(.bad("\(what): whitespace before colon"))
            }
            return .failure(.bad("\(what): invalid character in field name"))
        }
        var valueStart = colon + 1
        var valueEnd = line.upperBound
        while valueStart < valueEnd, isWhitespace(bytes[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        for index in valueStart..<valueEnd {
            let byte = bytes[index]
            if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
                return .failure(.bad("\(what): control character in field value"))
            }
        }
        return .success((string(bytes, line.lowerBound..<colon), string(bytes, valueStart..<valueEnd)))
    }

    /// The path of an absolute-form target (`http://host/p?q` → `/p?q`), or `nil`.
    static func absoluteFormPath(_ target: String) -> String? {
        let lower = target.lowercased()
        let schemeLength = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return nil }
        let rest = target.utf8.dropFirst(schemeLength)
        guard let slash = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
            return rest.isEmpty ? nil : "/"
        }
        let tail = String(decoding: rest[slash...], as: UTF8.self)
        return tail.hasPrefix("/") ? tail : "/" + tail
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
