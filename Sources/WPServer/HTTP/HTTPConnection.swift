/// One HTTP connection's state. Confined to the reactor's thread.
final class HTTPConnection: ReactorConnection {
    enum Phase: Equatable {
        /// Waiting for the first byte of the next request.
        case idle
        /// Part of a request head has arrived.
        case head
        /// The head is complete; the body is arriving.
        case body
        /// The handler is running.
        case processing
        /// A response (or `100 Continue`) is being written.
        case writing
        /// After an error response: our side is shut down, the peer's leftover input is
        /// read and discarded briefly so that closing does not reset the connection before
        /// the peer has read the error.
        case lingering
    }

    /// What is being written and what happens after it.
    struct PendingWrite {
        var response: EncodedResponse
        var written = 0
        /// Where the next write starts.
        var cursor = EncodedResponse.Cursor()
        /// `false` for `100 Continue`: reading resumes afterwards.
        var isFinal: Bool
        var keepAlive: Bool
        /// Linger (see ``Phase/lingering``) instead of closing at once after this response.
        var linger = false
    }

    /// What the access log and observer need about the request in flight.
    struct InFlight {
        var method: String
        var path: String
        var started: Int64
    }

    var parser: HTTPRequestParser
    var buffer: [UInt8] = []
    /// Its ``ReactorConnection/deadline`` is the current phase's.
    var phase: Phase = .idle
    /// When the request being received must be complete (``WPHTTPServer/Configuration/requestTimeout``).
    var requestDeadline: Int64 = .max
    /// Bytes of the global body budget this connection's request holds.
    var reservedBodyBytes = 0
    var requestCount = 0
    /// Bytes discarded while lingering.
    var discarded = 0
    var sentContinue = false
    /// Set on shutdown: the response in flight is the last one.
    var closeAfterResponse = false
    var pending: PendingWrite?
    var inFlight: InFlight?

    /// Whether the connection is receiving a request (as opposed to running or answering one).
    var isReading: Bool { phase == .idle || phase == .head || phase == .body }

    init(id: UInt64, io: any ConnectionIO, remoteAddress: String, parser: HTTPRequestParser, acceptedAt: Int64) {
        self.parser = parser
        super.init(id: id, io: io, remoteAddress: remoteAddress, acceptedAt: acceptedAt)
    }
}
