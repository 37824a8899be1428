/// One accepted connection's state. Confined to the event loop thread.
final class Connection {
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

    let id: UInt64
    let io: any ConnectionIO
    let remoteAddress: String
    var parser: HTTPRequestParser
    var buffer: [UInt8] = []
    var phase: Phase = .idle
    /// Monotonic nanoseconds after which the current phase times out; 0 when none.
    var deadline: Int64 = 0
    /// When the request being received must be complete (``HTTPServer/Configuration/requestTimeout``).
    var requestDeadline: Int64 = .max
    /// When the connection was accepted: the oldest idle one makes room at the cap.
    let acceptedAt: Int64
    /// Bytes of the global body budget this connection's request holds.
    var reservedBodyBytes = 0
    /// Queued to read on in the next loop turn (its read budget ran out).
    var readQueued = false
    var readable = true
    /// The peer shut down its side (or the socket failed): reads must continue to the end.
    var peerClosed = false
    var writable = true
    var requestCount = 0
    /// Bytes discarded while lingering.
    var discarded = 0
    var sentContinue = false
    /// Set on shutdown: the response in flight is the last one.
    var closeAfterResponse = false
    var pending: PendingWrite?
    var inFlight: InFlight?
    var task: Task<Void, Never>?

    /// Whether the connection is receiving a request (as opposed to running or answering one).
    var isReading: Bool { phase == .idle || phase == .head || phase == .body }

    init(id: UInt64, io: any ConnectionIO, remoteAddress: String, parser: HTTPRequestParser, acceptedAt: Int64) {
        self.id = id
        self.io = io
        self.remoteAddress = remoteAddress
        self.parser = parser
        self.acceptedAt = acceptedAt
    }
}
