import WPText
import WPRuntime
public import FoundationEssentials
public import WPMetrics

/// Pushes a registry (or families) to a Prometheus Pushgateway.
///
/// Requests go to `/metrics/job/<job>{/<label>/<value>}`; values that contain `/` or are empty
/// are sent base64url-encoded (`<label>@base64/<value>`). Network errors and 5xx answers are
/// retried with exponential backoff (3 attempts by default); 4xx answers are not retried.
/// Errors quote what the gateway answered; credentials never appear in them.
///
/// ```swift
/// let client = try PushgatewayClient(configuration: .init(
///     url: URL(string: "http://pushgateway:9091")!, job: "nightly_backup", grouping: ["instance": "db1"]))
/// try await client.push(registry)          // PUT: replace the group
/// try await client.delete()                // DELETE: remove the group
/// ```
public struct PushgatewayClient: Sendable {
    /// Where and how to push.
    public struct Configuration: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
        /// The gateway's base URL (`http://host:9091`, optionally with a path prefix).
        public var url: URL
        /// The `job` grouping label.
        public var job: String
        /// Further grouping labels.
        public var grouping: [String: String]
        /// Timeout per attempt.
        public var timeout: Duration
        /// Attempts in total (1 disables retries).
        public var maxAttempts: Int
        /// Delay before the second attempt; doubles for each further attempt.
        public var initialBackoff: Duration
        /// Upper bound for a single backoff delay.
        public var maxBackoff: Duration
        /// Basic-auth user name, or nil.
        public var username: String?
        /// Basic-auth password; never printed.
        public var password: String?
        /// The body format.
        public var format: ExpositionFormat

        /// Creates a configuration with the defaults (10 s timeout, 3 attempts, 0.5 s backoff).
        public init(
            url: URL, job: String, grouping: [String: String] = [:], timeout: Duration = .seconds(10),
            maxAttempts: Int = 3, initialBackoff: Duration = .milliseconds(500), maxBackoff: Duration = .seconds(10),
            username: String? = nil, password: String? = nil, format: ExpositionFormat = .text
        ) {
            self.url = url
            self.job = job
            self.grouping = grouping
            self.timeout = timeout
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.username = username
            self.password = password
            self.format = format
        }

        /// A summary of the configuration: URL, job, grouping, authentication (never the password)
        /// and attempts.
        public var description: String {
            "Pushgateway(url: \(url.absoluteString), job: \(job), grouping: \(grouping.sorted { $0.key < $1.key }), "
                + "auth: \(username == nil ? "none" : "basic, password redacted"), attempts: \(maxAttempts))"
        }

        /// A mirror without the password, so `dump` and debuggers never show it.
        public var customMirror: Mirror {
            Mirror(self, children: ["url": url, "job": job, "grouping": grouping, "timeout": timeout,
                                    "maxAttempts": maxAttempts, "username": username as Any,
                                    "password": password == nil ? "none" : Redaction.mask, "format": format])
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    private let transport: any PushTransport
    private let sleep: @Sendable (Duration) async throws -> Void
    private let groupURL: URL
    private let credentials: PushCredentials

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: Where and how to push.
    ///   - transport: The HTTP transport: ``HTTPClientPushTransport`` by default; tests inject a fake.
    ///   - clock: The clock that times backoff delays.
    /// - Throws: ``PushError/invalidConfiguration(_:)`` for a URL with credentials or without
    ///   host, an empty job, an invalid grouping label name or fewer than one attempt.
    public init<C: Clock<Duration>>(
        configuration: Configuration, transport: any PushTransport = HTTPClientPushTransport(), clock: C = ContinuousClock()
    ) throws(PushError) {
        guard let scheme = configuration.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              configuration.url.host != nil else {
            throw .invalidConfiguration("the gateway URL must be http:// or https:// with a host")
        }
        guard configuration.url.user == nil, configuration.url.password == nil else {
            throw .invalidConfiguration("put credentials in username/password, not in the gateway URL")
        }
        guard !configuration.job.isEmpty else { throw .invalidConfiguration("the job name must not be empty") }
        for name in configuration.grouping.keys where !NameValidation.isValidLabelName(name) || name == "job" {
            throw .invalidConfiguration("grouping label name \(name.debugDescription) is invalid")
        }
        guard configuration.maxAttempts >= 1 else {
            throw .invalidConfiguration("maxAttempts must be at least 1, got \(configuration.maxAttempts)")
        }
        self.configuration = configuration
        self.transport = transport
        self.sleep = { duration in try await clock.sleep(for: duration) }
        self.groupURL = Self.groupURL(configuration)
        self.credentials = PushCredentials(username: configuration.username, password: configuration.password)
    }

    /// The URL of this client's group, e.g. `http://gw:9091/metrics/job/backup/instance/db1`.
    public var url: URL { groupURL }

    /// Replaces every metric of the group with the registry's (HTTP `PUT`).
    /// - Throws: ``PushError`` describing the gateway's answer or why none came.
    public func push(_ registry: MetricRegistry) async throws(PushError) {
        try await send(method: "PUT", body: registry.render(format: configuration.format))
    }

    /// Replaces only the pushed metric names within the group (HTTP `POST`).
    /// - Throws: ``PushError`` describing the gateway's answer or why none came.
    public func pushAdd(_ registry: MetricRegistry) async throws(PushError) {
        try await send(method: "POST", body: registry.render(format: configuration.format))
    }

    /// Pushes already collected families (HTTP `PUT`, or `POST` when `replace` is false).
    /// - Throws: ``PushError`` describing the gateway's answer or why none came.
    public func push(families: [MetricFamily], replace: Bool = true) async throws(PushError) {
        try await send(method: replace ? "PUT" : "POST", body: ExpositionEncoder(format: configuration.format).encode(families))
    }

    /// Pushes an exposition that is already rendered in ``Configuration/format`` (HTTP `PUT`,
    /// or `POST` when `replace` is false): for a service that renders its metrics once per
    /// cycle and serves the same bytes to scrapers and to the gateway.
    ///
    /// The body is sent as it is; it must be in the configured format (for OpenMetrics,
    /// terminated by `# EOF`).
    /// - Throws: ``PushError`` describing the gateway's answer or why none came.
    public func push(rendered body: [UInt8], replace: Bool = true) async throws(PushError) {
        try await send(method: replace ? "PUT" : "POST", body: body)
    }

    /// Deletes the whole group from the gateway (HTTP `DELETE`).
    /// - Throws: ``PushError`` describing the gateway's answer or why none came.
    public func delete() async throws(PushError) {
        try await send(method: "DELETE", body: [])
    }

    /// Attempt `n` (1-based) that failed waits `initialBackoff * 2^(n-1)`, capped at `maxBackoff`.
    static func backoff(afterAttempt attempt: Int, configuration: Configuration) -> Duration {
        Backoff(initial: configuration.initialBackoff, maximum: configuration.maxBackoff).delay(afterFailures: attempt)
    }

    private func send(method: String, body: [UInt8]) async throws(PushError) {
        var headers: [String: String] = [:]
        if !body.isEmpty { headers["Content-Type"] = configuration.format.contentType }
        if let header = credentials.header { headers["Authorization"] = header }
        let request = PushRequest(method: method, url: groupURL, headers: headers, body: body, timeout: configuration.timeout)
        let shownURL = groupURL.absoluteString
        var attempt = 0
        while true {
            attempt += 1
            let outcome: PushError
            do {
                let response = try await transport.send(request)
                if (200..<300).contains(response.status) { return }
                let answer = redact(Self.excerpt(response.body))
                if (400..<500).contains(response.status) {
                    throw PushError.rejected(url: shownURL, status: response.status, body: answer)
                }
                outcome = .failed(url: shownURL, status: response.status, body: answer, attempts: attempt)
            } catch let error as PushError {
                throw error
            } catch {
                outcome = .unreachable(url: shownURL, reason: redact(String(describing: error)), attempts: attempt)
            }
            if attempt >= configuration.maxAttempts || Task.isCancelled { throw outcome }
            do {
                try await sleep(Self.backoff(afterAttempt: attempt, configuration: configuration))
            } catch {
                throw outcome
            }
        }
    }

    private func redact(_ text: String) -> String { credentials.redact(text) }

    private static func excerpt(_ body: [UInt8]) -> String {
        // Trims what `CharacterSet.whitespacesAndNewlines` holds: the Unicode White_Space
        // scalars and U+200B.
        let isSpace = { (scalar: Unicode.Scalar) in scalar.properties.isWhitespace || scalar == "\u{200B}" }
        let text = String(decoding: body.prefix(512), as: UTF8.self).unicodeScalars
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) }) else { return "(empty body)" }
        return String(text[first...last])
    }

    /// Builds `/metrics/job/<job>{/<label>/<value>}` with `@base64` where needed.
    static func groupURL(_ configuration: Configuration) -> URL {
        var path = configuration.url.absoluteString
        while path.hasSuffix("/") { path.removeLast() }
        path += "/metrics/" + segment("job", configuration.job)
        for (name, value) in configuration.grouping.sorted(by: { $0.key < $1.key }) {
            path += "/" + segment(name, value)
        }
        return URL(string: path) ?? configuration.url
    }

    /// One `name/value` pair of the grouping path.
    static func segment(_ name: String, _ value: String) -> String {
        if value.isEmpty { return name + "@base64/=" }
        if value.contains("/") { return name + "@base64/" + Base64.encoded(value.utf8, url: true) }
        return name + "/" + percentEncoded(value)
    }

    /// `value` percent-encoded for a path segment (``PercentEncoding/encoded(_:strict:)``).
    static func percentEncoded(_ value: String, strict: Bool = false) -> String {
        PercentEncoding.encoded(value, strict: strict)
    }
}
