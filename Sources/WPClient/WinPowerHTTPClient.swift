public import FoundationEssentials
public import WPLogging
public import WPWallClock

/// The WinPower G2 client: logs in, keeps the token fresh, reads every page of the device
/// list and decodes it tolerantly.
///
/// - A token's lifetime comes from its own claims (`exp − iat`, `expire_time_key −
///   create_time_key`, `tokenExpiredMinutes`, else 30 minutes; at most 24 h), counted from its
///   receipt on the injected monotonic clock; it is reused until `refreshThreshold` (at most half
///   the lifetime) before expiry. Concurrent callers share one login in flight.
/// - An HTTP 401, or a 200 whose envelope code is `401`, triggers one re-login and one retry
///   per readout.
/// - Rejected logins back off (1 s doubling to 5 min): while backing off, readouts fail fast
///   with an `auth` error and the server is not asked.
/// - Pages are read until `total` devices are seen, with de-duplication by id, a page bound and
///   a device bound; device texts are cut to a byte bound (``Configuration/maxDevices``,
///   ``Configuration/maxPages``, ``Configuration/maxTextBytes``).
///
/// Time comes from the injected clock (monotonic decisions) and `wallClock` (reported instants).
///
/// ```swift
/// let client = WinPowerHTTPClient(configuration: configuration, logger: logger.child(label: "client"))
/// let readout = try await client.fetchDevices()
/// ```
public actor WinPowerHTTPClient: WinPowerClient, CredentialUpdating {
    /// Changed only by ``updateCredentials(username:password:)``.
    private(set) var configuration: Configuration
    let transport: any HTTPTransport
    let logger: WPLogger
    let decoder: DeviceListDecoder
    /// Elapsed time on the injected clock since the client was made.
    let elapsed: @Sendable () -> Duration
    let wallClock: WallClock
    /// This client's slot in the logger's redactor: each client masks its own current token, so
    /// several servers sharing one redactor never unmask each other's.
    let tokenSlot = "winpower.token." + UUID().uuidString

    var token: SessionToken?
    var loginInFlight: Task<SessionToken, any Error>?
    var lastLogin: Date?
    var failedLogins = 0
    var loginBlockedUntil: Duration?
    /// API calls not yet handed out in a readout (bounded).
    var pendingCalls: [APICall] = []
    /// The drops of the last readout already logged (``reportDrops(_:)``).
    var reportedDrops: Set<String> = []
    /// What made the last readout incomplete, already logged (``reportIncompleteness(_:)``).
    var reportedIncompleteness = ""

    /// Creates a client; nothing is sent until the first ``fetchDevices()``. Requests go
    /// through the transport the configuration asks for (its own sockets for `http://`, libcurl
    /// for `https://`), on threads of its own.
    ///
    /// - Parameters:
    ///   - configuration: server, credentials and limits.
    ///   - clock: drives token renewal, login backoff and the time budget.
    ///   - wallClock: the current wall-clock time, used only to report instants (token expiry,
    ///     last login); the server's claims are never compared with it.
    ///   - logger: where the client logs; it never logs secrets or bodies (debug previews are
    ///     truncated and masked).
    public init(configuration: Configuration, clock: some Clock<Duration> = ContinuousClock(),
                wallClock: WallClock = .system, logger: WPLogger) {
        self.init(configuration: configuration, transport: nil, clock: clock, wallClock: wallClock, logger: logger)
    }

    /// A client over `transport` (a test's fake), or the transport the configuration asks for.
    package init(configuration: Configuration, transport: (any HTTPTransport)?,
                clock: some Clock<Duration> = ContinuousClock(),
                wallClock: WallClock = .system, logger: WPLogger) {
        self.configuration = configuration
        self.decoder = DeviceListDecoder(maxTextBytes: configuration.maxTextBytes)
        self.transport = transport ?? Self.makeTransport(for: configuration)
        self.logger = logger
        self.wallClock = wallClock
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
    }

    /// Uses `username` and `password` from the next login on: the session token is dropped and any
    /// login backoff ends. Nothing changes when both are the ones in use.
    public func updateCredentials(username: String, password: String) {
        guard username != configuration.username || password != configuration.password else { return }
        configuration.username = username
        configuration.password = password
        token = nil
        failedLogins = 0
        loginBlockedUntil = nil
        logger.info("credentials changed; the next collection logs in with them")
    }

    deinit {
        logger.redactor.setSecret(nil, named: tokenSlot)
    }

    /// Every page of the device list, logging in first when needed.
    ///
    /// - Returns: the devices and connection facts (token expiry, last login, API timings).
    /// - Throws: ``ClientError``; `auth` when credentials are rejected (or during backoff),
    ///   `timeout` when the collection exceeds `timeout`.
    public func fetchDevices() async throws -> DeviceReadout {
        let deadline = elapsed() + configuration.timeout
        var current = try await validToken(replacing: nil, deadline: deadline)
        var retried = false
        var pager = Pager(maxPages: configuration.maxPages, maxDevices: configuration.maxDevices)
        while let page = pager.nextPage {
            let result = try await requestPage(page, keepAtMost: pager.remainingDevices, token: current.value,
                                               deadline: deadline)
            guard case .page(let listPage) = result else {
                if retried {
                    throw ClientError(.auth, "device list still unauthorized after logging in again")
                }
                retried = true
                logger.info("token rejected; logging in again", ["page": .int(page)])
                current = try await validToken(replacing: current.value, deadline: deadline)
                continue
            }
            pager.accept(listPage, page: page)
        }
        reportIncompleteness(pager)
        reportDrops(pager.dropped)
        var readout = DeviceReadout(devices: pager.devices, dropped: pager.dropped, reportedTotal: pager.reportedTotal,
                                    pages: pager.pagesRead, isComplete: pager.isComplete, calls: takeAPICalls(),
                                    tokenExpiry: token?.wallExpiry, lastLogin: lastLogin)
        readout.incompleteReason = pager.incompleteReason
        readout.devicesDropped = pager.devicesDropped
        readout.textsTruncated = pager.textsTruncated
        return readout
    }

    /// API calls measured since the last readout or call of this method, oldest first.
    ///
    /// A successful ``fetchDevices()`` already returns its calls in ``DeviceReadout/calls``;
    /// after a failure, call this to still observe the latency of the failed requests.
    package func takeAPICalls() -> [APICall] {
        defer { pendingCalls.removeAll(keepingCapacity: true) }
        return pendingCalls
    }

    /// The current token's expiry (wall clock), or `nil` when not logged in.
    public var tokenExpiry: Date? { token?.wallExpiry }

    /// When the last successful login happened, or `nil` if never.
    public var lastLoginTime: Date? { lastLogin }

    func record(_ call: APICall) {
        if pendingCalls.count >= 1024 { pendingCalls.removeFirst(pendingCalls.count - 1023) }
        pendingCalls.append(call)
    }
}
