public import FoundationEssentials
import WPText
import Synchronization
public import WPLogging
public import WPServer
import WPRuntime

/// A faithful fake WinPower G2 server, as an `HTTPHandler`.
///
/// Serves `POST /api/v1/auth/login` and `GET /api/v1/deviceData/detail/list` with the same
/// headers (chunked, Spring Security's), envelopes, string-typed numbers and 401 body as the
/// real server; issues three-segment HS512-shaped JWTs with the real claim set (`exp` in
/// seconds or, like newer builds, milliseconds; claims in the server's possibly skewed clock)
/// and enforces their lifetime; caps the page size (20 by default). Devices are ``SimulatedDevice``s whose power follows
/// `PowerCurve(deviceIndex:)` at `t` = seconds elapsed on the injected clock since the
/// simulator was made, so a test can compute exact energy. Faults switch on and off at run
/// time; counters record logins and list calls.
///
/// ```swift
/// let simulator = WinPowerSimulator(configuration: .init(), clock: clock)
/// simulator.enable(.earlyExpiry)
/// let response = try await simulator.handle(request)
/// ```
public final class WinPowerSimulator: HTTPHandler {
    struct State {
        var faults: Set<Fault>
        var counters = Counters()
        /// Token → elapsed time at issue.
        var tokens: [String: Duration] = [:]
        var tokenSerial = 0
        var reportedTotal: Int?
        var lastLoginRequest: WPHTTPRequest?
        var lastListRequest: WPHTTPRequest?
    }

    /// The settings the simulator was created with (faults switch at run time, see ``faults``).
    public let configuration: Configuration
    /// The simulated devices, in list order.
    public let devices: [SimulatedDevice]
    let state: Mutex<State>
    let logger: WPLogger
    let elapsed: @Sendable () -> Duration
    /// The time since creation at the last ``restart()`` (zero before one): ``elapsed`` counts from it.
    private let restartedAt: RestartMark
    let sleep: @Sendable (Duration) async throws -> Void

    /// Creates a simulator with its devices, in process: serve it with ``SimulatorServer`` or call
    /// ``handle(_:)``.
    ///
    /// - Parameters:
    ///   - configuration: credentials, device count, limits and initial faults.
    ///   - clock: drives token time, slow responses and the power curves' `t`.
    ///   - logger: request summaries at debug level (never credentials or tokens).
    public init(configuration: Configuration = Configuration(), clock: some Clock<Duration> = ContinuousClock(),
                logger: WPLogger = .disabled) {
        self.configuration = configuration
        let first = max(0, configuration.firstDeviceIndex)
        self.devices = (first..<first + max(0, configuration.deviceCount)).map { index in
            var device = SimulatedDevice(index: index)
            device.threePhase = index - first < configuration.threePhaseDevices
            device.extraReadings = max(0, configuration.extraReadings)
            device.areaId = SimulatedDevice.areaId((index - first) % max(1, configuration.areas))
            device.alarmShapes = configuration.alarmShapes
            if configuration.longTexts > 0 {
                device.alias = Self.longText("UPS \(index) " + String(repeating: "机房", count: configuration.longTexts / 12), bytes: configuration.longTexts)
                device.model = Self.longText("", bytes: configuration.longTexts)
            }
            if index == first, let alias = configuration.alias { device.alias = alias }
            if index == first, configuration.aliasBytes > 0 {
                device.alias = String(repeating: "€", count: configuration.aliasBytes / 3)
                    + String(repeating: "x", count: configuration.aliasBytes % 3)
            }
            return device
        }
        self.state = Mutex(State(faults: configuration.faults))
        self.logger = logger
        let origin = clock.now
        let restartedAt = RestartMark()
        self.restartedAt = restartedAt
        self.elapsed = { origin.duration(to: clock.now) - restartedAt.value.withLock { $0 } }
        self.restartMark = { restartedAt.value.withLock { $0 = origin.duration(to: clock.now) } }
        self.sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }

    private let restartMark: @Sendable () -> Void

    /// What ``restart()`` last set, shared with the clock's closures.
    private final class RestartMark: Sendable {
        let value = Mutex(Duration.zero)
    }

    // MARK: Control API

    /// Starts again as a WinPower server that was restarted: its time (the power curves' `t`,
    /// the outage schedule, ``now``) counts from zero again, the tokens issued before are unknown
    /// (requests carrying them are answered as an expired login is), and the faults are the
    /// configuration's. Counters and the devices stay.
    public func restart() {
        restartMark()
        state.withLock { state in
            state.tokens.removeAll()
            state.faults = configuration.faults
        }
    }

    /// The faults active now.
    public var faults: Set<Fault> { state.withLock { $0.faults } }

    /// Replaces the active faults.
    public func setFaults(_ faults: Set<Fault>) { state.withLock { $0.faults = faults } }

    /// Switches `fault` on.
    public func enable(_ fault: Fault) { _ = state.withLock { $0.faults.insert(fault) } }

    /// Switches `fault` off.
    public func disable(_ fault: Fault) { _ = state.withLock { $0.faults.remove(fault) } }

    /// Whether a socket runner should refuse connections now.
    public var isUnreachable: Bool { faults.contains(.unreachable) }

    /// Makes the list report `total` instead of the real device count (`nil` restores it),
    /// to simulate a server that lies about its total.
    public func setReportedTotal(_ total: Int?) { state.withLock { $0.reportedTotal = total } }

    /// Request counters so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// Every token issued so far (for tests asserting they never leak).
    public var issuedTokens: [String] { state.withLock { Array($0.tokens.keys) } }

    /// The last login request received, for header assertions.
    public var lastLoginRequest: WPHTTPRequest? { state.withLock { $0.lastLoginRequest } }

    /// The last device-list request received, for header assertions.
    public var lastListRequest: WPHTTPRequest? { state.withLock { $0.lastListRequest } }

    /// `prefix` filled up with `#` to `bytes` UTF-8 bytes (cut at a character when the prefix is longer).
    static func longText(_ prefix: String, bytes: Int) -> String {
        var text = ""
        for character in prefix where text.utf8.count + character.utf8.count <= bytes { text.append(character) }
        return text + String(repeating: "#", count: max(0, bytes - text.utf8.count))
    }

    /// Seconds of simulated time: the `t` of the power curves now.
    public var simulatedSeconds: Double { elapsed().inSeconds }

    /// The wall-clock time the simulator believes it is (its epoch plus elapsed time).
    public var now: Date { configuration.epoch.addingTimeInterval(simulatedSeconds) }

    /// The server's own clock: ``now`` shifted by ``Configuration/clockSkew``; token claims
    /// are written in it.
    public var serverNow: Date { now.addingTimeInterval(configuration.clockSkew.inSeconds) }

    // MARK: HTTPHandler

    /// The simulated server's answer to `request`, as the active faults shape it.
    ///
    /// - Throws: ``SimulatorError/unreachable`` while ``Fault/unreachable`` is active;
    ///   `CancellationError` when cancelled while ``Fault/slow`` delays the answer.
    public func handle(_ request: WPHTTPRequest) async throws -> WPHTTPResponse {
        if faults.contains(.unreachable) { throw SimulatorError.unreachable }
        if faults.contains(.slow) { try await sleep(configuration.slowDelay) }
        let prefix = configuration.pathPrefix.hasSuffix("/") ? String(configuration.pathPrefix.dropLast())
                                                               : configuration.pathPrefix
        guard request.path.hasPrefix(prefix) else { return Self.withSpringHeaders(notFound()) }
        let path = String(request.path.dropFirst(prefix.count))
        let response: WPHTTPResponse
        switch (request.method, path) {
        case ("POST", "/api/v1/auth/login"): response = login(request)
        case ("GET", "/api/v1/deviceData/detail/list"): response = list(request)
        case (_, "/api/v1/auth/login"), (_, "/api/v1/deviceData/detail/list"):
            return Self.withSpringHeaders(envelope(status: 405, code: "405", message: "Method Not Allowed"))
        default: return Self.withSpringHeaders(notFound())
        }
        logger.debug("simulator request", ["path": .string(path), "status": .int(response.status)])
        return Self.withSpringHeaders(applyBodyFaults(response))
    }

    /// The headers Spring Security adds to every reply of the real server.
    static let springSecurityHeaders: [(String, String)] = [
        ("Vary", "Origin"), ("X-Content-Type-Options", "nosniff"), ("X-XSS-Protection", "1; mode=block"),
        ("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate"), ("Pragma", "no-cache"),
        ("Expires", "0"), ("X-Frame-Options", "DENY"),
    ]

    /// A reply as the real server frames it: Spring Security's headers, and the body sent with
    /// `Transfer-Encoding: chunked` (Spring Boot streams its JSON replies).
    static func withSpringHeaders(_ response: WPHTTPResponse) -> WPHTTPResponse {
        var response = response
        for (name, value) in springSecurityHeaders { response.headers.add(name: name, value: value) }
        response.chunked = true
        return response
    }

    func notFound() -> WPHTTPResponse { envelope(status: 404, code: "404", message: "Not Found") }

    func envelope(status: Int, code: String, message: String, key: String = "msg") -> WPHTTPResponse {
        .json(Array("{\"code\":\"\(code)\",\"\(key)\":\(message.jsonQuoted),\"data\":null}".utf8), status: status)
    }

    /// HTTP 500, malformed and truncated bodies, applied to every API response.
    private func applyBodyFaults(_ response: WPHTTPResponse) -> WPHTTPResponse {
        let faults = self.faults
        if faults.contains(.http500) {
            return envelope(status: 500, code: "500", message: "Internal Server Error")
        }
        var response = response
        if faults.contains(.malformedJSON) {
            response.body = Array("{\"code\":\"000000\",\"msg\":\"OK\",\"data\":[{\"assetDevice\":{\"id\" \"x\"}]".utf8)
        }
        if faults.contains(.truncatedBody) {
            response.body = Array(response.body.prefix(response.body.count / 2))
        }
        return response
    }
}
