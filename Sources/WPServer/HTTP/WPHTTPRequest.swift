/// A parsed HTTP/1.x request as handed to an ``HTTPHandler``.
public struct WPHTTPRequest: Sendable, Equatable {
    /// The method token exactly as sent (`GET`, `POST`, ...).
    public var method: String
    /// The request target exactly as sent (`/api/v1/x?current=1`).
    public var target: String
    /// The path part of the target, without the query; percent-encoding left as sent.
    public var path: String
    /// The raw query string after `?`, or `nil` when there is none.
    public var query: String?
    /// HTTP version, e.g. `(1, 1)`.
    public var version: WPHTTPVersion
    /// The header fields, in the order sent.
    public var headers: WPHTTPHeaders
    /// The body, decoded from chunked framing when it was chunked; empty when there is none.
    public var body: [UInt8]
    /// The peer's address (`127.0.0.1:53122`), when known.
    public var remoteAddress: String?

    /// Creates a request; ``path`` and ``query`` are cut from `target`.
    public init(method: String, target: String, version: WPHTTPVersion = .http11,
                headers: WPHTTPHeaders = WPHTTPHeaders(), body: [UInt8] = [], remoteAddress: String? = nil) {
        self.method = method
        self.target = target
        if let question = target.firstIndex(of: "?") {
            self.path = String(target[..<question])
            self.query = String(target[target.index(after: question)...])
        } else {
            self.path = target
            self.query = nil
        }
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// Query parameters in order, `+` and percent-escapes decoded. Malformed escapes are kept verbatim.
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.formDecode(parts[0])
            let value = parts.count > 1 ? Self.formDecode(parts[1]) : ""
            return (name: name, value: value)
        }
    }

    /// The first value of query parameter `name`, or `nil`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    private static func formDecode(_ raw: Substring) -> String {
        String(String.UnicodeScalarView(raw.unicodeScalars.map { $0 == "+" ? " " : $0 }))
            .removingPercentEncodingSafely()
    }

    /// Whether method, target, version, header fields, body and remote address are all equal.
    public static func == (lhs: WPHTTPRequest, rhs: WPHTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.version == rhs.version
            && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.remoteAddress == rhs.remoteAddress
    }
}

/// An HTTP version number.
public struct WPHTTPVersion: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The number before the dot: 1 in every request the server accepts.
    public var major: Int
    /// The number after the dot: 0 or 1 in every request the server accepts.
    public var minor: Int
    /// Creates the version `HTTP/<major>.<minor>`.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    /// HTTP/1.0.
    public static let http10 = WPHTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http11 = WPHTTPVersion(major: 1, minor: 1)
    /// `HTTP/<major>.<minor>`, as on the request line.
    public var description: String { "HTTP/\(major).\(minor)" }
}

extension String {
    /// Decodes `%XX` escapes; a malformed escape or invalid UTF-8 leaves the input unchanged.
    func removingPercentEncodingSafely() -> String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let high = hexValue(iterator[iterator.startIndex]),
               let low = hexValue(iterator[iterator.startIndex + 1]) {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? self
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
