/// Why a request was rejected by the parser, and the status code it is answered with.
///
/// The server sends `status` with `reason` as a plain-text body and then closes the
/// connection: after a framing error the rest of the byte stream cannot be trusted.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status to answer with: 400, 413, 417, 431, 501 or 505.
    public var status: Int
    /// What was wrong and where, e.g. `header line 3: whitespace before colon`.
    public var reason: String

    /// Creates the rejection answered with `status`, saying `reason`.
    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    /// `<status>: <reason>`.
    public var description: String { "\(status): \(reason)" }

    static func bad(_ reason: String) -> HTTPParseError { HTTPParseError(status: 400, reason: reason) }
}

/// Size limits the request parser enforces.
struct HTTPParserLimits: Sendable, Equatable {
    /// Maximum bytes of the request line plus header section (and of a chunked trailer section).
    var maxHeaderBytes: Int
    /// Maximum number of header fields.
    var maxHeaderCount: Int
    /// Maximum decoded body bytes.
    var maxBodyBytes: Int
}

/// A complete request cut from the front of a byte stream.
struct ParsedRequest: Sendable, Equatable {
    var request: WPHTTPRequest
    /// Whether the connection may stay open after the response (version and `Connection`).
    var keepAlive: Bool
    /// Bytes of the stream the request occupied, including its body.
    var consumed: Int
}

/// The result of offering the buffered bytes to the parser.
enum HTTPParseResult: Sendable, Equatable {
    /// The bytes are a valid prefix. `awaitingContinue` is set once the head is complete, asked
    /// for `Expect: 100-continue`, and no body byte has arrived yet.
    case needMore(awaitingContinue: Bool)
    case request(ParsedRequest)
    case failure(HTTPParseError)
}

/// How the body of a request is delimited.
enum BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}

/// The parsed request line and header section, before the body.
struct RequestHead: Sendable, Equatable {
    var request: WPHTTPRequest
    var keepAlive: Bool
    var framing: BodyFraming
    var expectContinue: Bool
    /// Offset of the first body byte.
    var headEnd: Int
}
