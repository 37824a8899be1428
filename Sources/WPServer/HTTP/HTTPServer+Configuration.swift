extension WPHTTPServer {
    /// Where to listen and the limits that keep the server alive on the open internet.
    ///
    /// Every field has a default suited to a metrics endpoint; embedders change what they need:
    ///
    /// ```swift
    /// var configuration = WPHTTPServer.Configuration(host: "::", port: 9090)
    /// configuration.idleTimeout = .seconds(30)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// Host name or IP literal to bind: `0.0.0.0`, `::`, `127.0.0.1`, `localhost`.
        public var host: String
        /// TCP port; `0` picks an ephemeral port (read it from ``WPHTTPServer/waitUntilListening()``).
        public var port: Int
        /// Listen backlog.
        public var backlog: Int = 1024
        /// Maximum bytes of the request line plus headers; larger heads get `431`.
        public var maxHeaderBytes: Int = 16 * 1024
        /// Maximum number of request header fields; more get `431`.
        public var maxHeaderCount: Int = 100
        /// Maximum request body bytes; larger bodies get `413`.
        public var maxBodyBytes: Int = 1 << 20
        /// Maximum open connections. The server also keeps ``reservedDescriptors`` of the
        /// open-files limit free, so the cap in force is the smaller of the two. At the cap, a
        /// new connection takes the place of the longest-waiting one that has no request in
        /// progress (idle, or with only part of a head); when there is none it is closed right
        /// after accept.
        public var maxConnections: Int = 10_000
        /// File descriptors left for the rest of the process (state and log files, outgoing
        /// connections): connections are capped at the soft `RLIMIT_NOFILE` minus this.
        public var reservedDescriptors: Int = 64
        /// Bytes read from one connection in one turn of the event loop before the others get
        /// their turn (and timers are checked): a peer that keeps its socket full cannot
        /// starve the loop.
        public var readBudgetPerTurn: Int = 256 * 1024
        /// Bytes of request bodies all connections together may have in flight (a body counts
        /// its announced length, or ``maxBodyBytes`` when chunked). A body that would pass it
        /// gets `503` and the connection is closed.
        public var maxBufferedBodyBytes: Int = 16 << 20
        /// Requests served on one connection before it is closed (`Connection: close`).
        public var maxRequestsPerConnection: Int = 10_000
        /// Time allowed to receive a complete request head, from the connection's first byte
        /// (or from accept for a new connection): the slowloris limit.
        public var headTimeout: Duration = .seconds(10)
        /// Time allowed to receive the body once the head is complete.
        public var bodyTimeout: Duration = .seconds(30)
        /// Time allowed to receive a whole request, head and body, from its first byte; `nil`
        /// leaves only ``headTimeout`` and ``bodyTimeout``. A request past it gets `408`.
        public var requestTimeout: Duration?
        /// How long a keep-alive connection may sit idle between requests.
        public var idleTimeout: Duration = .seconds(60)
        /// How long a response write may make no progress (a peer that stopped reading).
        public var writeTimeout: Duration = .seconds(30)
        /// On shutdown, how long in-flight requests may take before connections are closed.
        public var shutdownGracePeriod: Duration = .seconds(10)
        /// Bodies at least this long are gzip-compressed when accepted; `nil` disables gzip.
        public var gzipMinimumBytes: Int? = 1024
        /// Let handlers that serve a pre-rendered body (``HTTPHandler/servesPreRenderedBody(_:)``)
        /// run on the event loop thread, saving two thread hops per request; every other
        /// handler runs on Swift's global pool whatever this says. `false` runs every handler
        /// on the pool.
        public var runsHandlersOnEventLoop: Bool = true
        /// Raise the soft open-files limit to the hard limit at start (as the Go runtime does).
        public var raiseOpenFilesLimit: Bool = true
        /// Sets `SO_REUSEPORT` on the listening socket: another socket of the same user setting
        /// it too may bind the port while this one listens, so the port can pass between two
        /// sockets without ever being free (WPSimulator's unreachable fault). Off by default: a
        /// server should own its port alone.
        public var sharesPort: Bool = false
        /// Serve HTTPS with these settings; `nil` (the default) serves plain HTTP.
        public var tls: WPTLSConfiguration?

        /// Creates settings for `host:port` (by default every IPv4 address and an ephemeral port);
        /// the rest takes the defaults.
        public init(host: String = "0.0.0.0", port: Int = 0) {
            self.host = host
            self.port = port
        }

        var parserLimits: HTTPParserLimits {
            HTTPParserLimits(maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount, maxBodyBytes: maxBodyBytes)
        }
    }
}

extension Int64 {
    /// `self + duration`, saturating at `Int64.max`: a deadline that cannot overflow, however
    /// long the configured timeout.
    func adding(_ duration: Duration) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(duration.nanoseconds)
        if overflow { return duration.nanoseconds < 0 ? .min : .max }
        return sum
    }
}

extension Duration {
    /// Whole nanoseconds, saturating.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return product.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
