/// Pure parsing of the pieces of an HTTP/1.x response head, over bytes.
///
/// Error details say which piece was wrong but never quote it: a misbehaving server may echo
/// request headers, and errors end up in logs.
enum ResponseSyntax {
    /// How the body after a head is delimited (RFC 9112 §6.3).
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
        case untilClose
    }

    /// `HTTP/1.<d> <3 digits>[ <reason>]` → the minor version and the status code.
    static func statusLine(_ line: ArraySlice<UInt8>) throws(HTTPClientError) -> (minorVersion: Int, status: Int) {
        let bytes = Array(line)
        let prefix = Array("HTTP/1.".utf8)
        guard bytes.count >= 12, bytes.starts(with: prefix), isDigit(bytes[7]), bytes[8] == space,
              isDigit(bytes[9]), isDigit(bytes[10]), isDigit(bytes[11]),
              bytes.count == 12 || bytes[12] == space else {
            throw HTTPClientError(.malformedResponse, "the status line is not 'HTTP/1.x <3-digit status>'")
        }
        let status = Int(bytes[9] - zero) * 100 + Int(bytes[10] - zero) * 10 + Int(bytes[11] - zero)
        guard (100...599).contains(status) else {
            throw HTTPClientError(.malformedResponse, "the status code \(status) is outside 100-599")
        }
        guard bytes.dropFirst(13).allSatisfy({ $0 == tab || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw HTTPClientError(.malformedResponse, "the status line contains control characters")
        }
        return (Int(bytes[7] - zero), status)
    }

    /// `name: value` → the name and the value without surrounding whitespace.
    static func headerField(_ line: ArraySlice<UInt8>, index: Int) throws(HTTPClientError) -> (name: String, value: String) {
        guard let first = line.first, first != space, first != tab else {
            throw HTTPClientError(.malformedResponse, "header line \(index) is folded (starts with whitespace)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw HTTPClientError(.malformedResponse, "header line \(index) has no ':'")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
            throw HTTPClientError(.malformedResponse, "header line \(index) has an invalid field name")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == space || byte == tab { value = value.dropFirst() }
        while let byte = value.last, byte == space || byte == tab { value = value.dropLast() }
        guard value.allSatisfy({ $0 == tab || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw HTTPClientError(.malformedResponse, "header line \(index) contains control characters")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// The size of a chunk from its size line (`1a3f[;extensions]`).
    static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPClientError) -> Int {
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = hexValue(line[index]) {
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow, digits < 15 else {
                throw HTTPClientError(.malformedResponse, "a chunk size is too large")
            }
            size = shifted + digit
            digits += 1
            index += 1
        }
        while index < line.endIndex, line[index] == space || line[index] == tab { index += 1 }
        guard digits > 0, index == line.endIndex || line[index] == UInt8(ascii: ";") else {
            throw HTTPClientError(.malformedResponse, "a chunk size line is not hexadecimal")
        }
        return size
    }

    /// The body framing of a response to `method` with `status` and `headers`.
    static func framing(method: String, status: Int,
                        headers: [(name: String, value: String)]) throws(HTTPClientError) -> Framing {
        if method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 { return .none }
        let encodings = headers.filter { $0.name.lowercased() == "transfer-encoding" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }
        if !encodings.isEmpty {
            return encodings.last == "chunked" ? .chunked : .untilClose
        }
        var length: Int?
        for field in headers where field.name.lowercased() == "content-length" {
            for item in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.trimmingSpaces
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(isDigit), let value = Int(text) else {
                    throw HTTPClientError(.malformedResponse, "the Content-Length header is not a number")
                }
                if let length, length != value {
                    throw HTTPClientError(.malformedResponse, "the response has conflicting Content-Length values")
                }
                length = value
            }
        }
        return length.map(Framing.length) ?? .untilClose
    }

    /// Whether the connection may carry another request after this response.
    static func allowsReuse(minorVersion: Int, headers: [(name: String, value: String)]) -> Bool {
        let tokens = headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }
        if tokens.contains("close") { return false }
        return minorVersion >= 1 || tokens.contains("keep-alive")
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let zero = UInt8(ascii: "0")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= UInt8(ascii: "9") }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
