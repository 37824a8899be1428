extension HTTPClient {
    /// How server certificates are checked on `https://` URLs.
    package enum TLSVerification: Sendable, Equatable {
        /// Against the system trust store.
        case system
        /// Against the PEM bundle at this path only.
        case trust(caFile: String)
        /// Not at all: encrypted but not authenticated.
        case skip
    }

    /// Limits and defaults of one client.
    ///
    /// ```swift
    /// var configuration = HTTPClient.Configuration()
    /// configuration.userAgent = "wpexporter/1.2.0"
    /// configuration.tls = .trust(caFile: "/etc/wpexporter/ca.pem")
    /// ```
    package struct Configuration: Sendable, Equatable {
        /// Certificate checking for `https://`; ``TLSVerification/system`` by default.
        package var tls: TLSVerification = .system
        /// The `User-Agent` sent when the request has none; none by default.
        package var userAgent: String?
        /// Larger bodies fail with ``HTTPClientError/Kind/tooLarge`` instead of eating memory.
        package var maxBodyBytes = 64 << 20
        /// Larger response heads (status line, headers, chunk trailers) fail with
        /// ``HTTPClientError/Kind/tooLarge``.
        package var maxHeadBytes = 64 << 10
        /// An idle kept-alive connection older than this is closed instead of reused.
        package var maxIdleTime: Duration = .seconds(30)
        /// The most threads the client runs exchanges on at once (at least 1); 8 by default;
        /// with a ``threadPool``, the most of the pool's threads it uses at once.
        /// Each request occupies one for its whole exchange, so this many can hang on
        /// unresponsive servers at once; further requests wait, in order, for one of this
        /// client's threads. Threads start only when requests need them.
        package var maxThreads = 8
        /// A client thread with no request to run for this long ends; 30 s by default. An idle
        /// client therefore holds no thread. Unused with a ``threadPool`` (the pool's
        /// ``ThreadPool/idleTime`` applies).
        package var threadIdleTime: Duration = .seconds(30)
        /// Threads shared with other clients; none by default (the client starts its own). With
        /// a pool, ``maxThreads`` bounds how many of the pool's threads this client's exchanges
        /// use at once.
        package var threadPool: ThreadPool?

        /// Creates a configuration with the defaults.
        package init() {}

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - tls: certificate checking for `https://`.
        ///   - userAgent: the default `User-Agent`.
        ///   - maxBodyBytes: the largest body accepted.
        package init(tls: TLSVerification = .system, userAgent: String? = nil, maxBodyBytes: Int = 64 << 20) {
            self.tls = tls
            self.userAgent = userAgent
            self.maxBodyBytes = maxBodyBytes
        }
    }
}
