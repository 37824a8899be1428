import WPText
package import FoundationEssentials
import WPClient
package import WPCollector
package import WPFrontEnd
import WPLogging
package import WPMetrics
package import WPServer
import WPRuntime
package import WPWallClock

/// The exporter's HTTP surface: `/metrics` (path configurable), `/health`, `/-/healthy`,
/// `/-/ready` and the `/` landing page, as one ``WPRouter``.
///
/// Everything it serves comes from closures, so the endpoints are tested without a collector:
/// a scrape reads the latest published snapshot and never waits on WinPower.
package struct Endpoints: Sendable {
    /// What the endpoints serve at one moment, read once per request (a reload may change the
    /// servers, and with them the shape).
    package struct View: Sendable {
        /// The `/metrics` snapshot.
        package var snapshot: MetricsSnapshot
        /// A merged snapshot's plain body in a format (`true`: OpenMetrics) as parts listed once
        /// per merge (`FleetExposition.parts`); when it (or its answer)
        /// is `nil`, a scrape lists them itself.
        package var bodyParts: (@Sendable (MetricsSnapshot, Bool) -> HTTPBodyParts?)?
        /// The server of a `winpower`-only configuration; `nil` with `servers`.
        package var single: ServerView?
        /// The configured servers with `servers`; empty for a single server. With them, `/probe`
        /// and `/targets` answer and `/health` and `/-/ready` are per server.
        package var servers: [ServerView]
    }

    /// The current view (``Exporter`` reads it from its fleet).
    package var view: @Sendable () -> View
    /// The current `/metrics` snapshot and its parts (``View/snapshot``, ``View/bodyParts``),
    /// read on every scrape without making the servers' views.
    package var exposition: @Sendable () -> (snapshot: MetricsSnapshot,
                                             bodyParts: (@Sendable (MetricsSnapshot, Bool) -> HTTPBodyParts?)?)
    /// The exporter version.
    package var version: String
    /// The path `/metrics` is served on.
    package var metricsPath: String
    /// Start of the process, for the uptime.
    package var startedAt: Date
    /// The wall clock.
    package var wallClock: WallClock
    /// Per-scrape metrics; its ``ScrapeMetrics/requests`` observes every request.
    package var scrape: ScrapeMetrics
    /// Reloads the configuration (`POST /-/reload`) and reports the last reload in `/health`.
    package var reloader: ConfigReloader?
    /// `server.enable_lifecycle` (`--web.enable-lifecycle`): whether `/-/reload` reloads.
    package var lifecycleEnabled: Bool
    /// The other front ends now, whose sections `/health` shows (the NUT server's under `nut`,
    /// the SNMP agent's under `snmp`), each when configured.
    package var frontEnds: @Sendable () -> [any FrontEnd]
    /// The energy store's state for `/health`; `nil` without one (endpoint tests). A failing
    /// store makes `/health` unhealthy.
    package var storage: (@Sendable () -> StorageHealth)?
    /// Adds the status pages' routes (`/status`, …; WPStatusPage) to the router; `nil` without them.
    /// The routes the front ends add (the status pages').
    package var frontEndRoutes: [FrontEndRoutes]

    package init(view: @escaping @Sendable () -> View,
                 exposition: (@Sendable () -> (snapshot: MetricsSnapshot,
                                               bodyParts: (@Sendable (MetricsSnapshot, Bool) -> HTTPBodyParts?)?))? = nil,
                 version: String, metricsPath: String, startedAt: Date,
                 wallClock: WallClock, scrape: ScrapeMetrics, reloader: ConfigReloader? = nil,
                 lifecycleEnabled: Bool = false, frontEnds: @escaping @Sendable () -> [any FrontEnd] = { [] },
                 storage: (@Sendable () -> StorageHealth)? = nil,
                 frontEndRoutes: [FrontEndRoutes] = []) {
        self.view = view
        self.exposition = exposition ?? {
            let view = view()
            return (view.snapshot, view.bodyParts)
        }
        self.version = version
        self.metricsPath = metricsPath
        self.startedAt = startedAt
        self.wallClock = wallClock
        self.scrape = scrape
        self.reloader = reloader
        self.lifecycleEnabled = lifecycleEnabled
        self.frontEnds = frontEnds
        self.storage = storage
        self.frontEndRoutes = frontEndRoutes
    }

    /// Endpoints of one unnamed server given as closures (tests serve them without a collector).
    package init(snapshot: @escaping @Sendable () -> MetricsSnapshot, health: @escaping @Sendable () -> CollectorHealth,
                 sinceLastSuccess: @escaping @Sendable () -> Duration?, stalenessWindow: Duration, target: String,
                 version: String, metricsPath: String, startedAt: Date, wallClock: WallClock,
                 scrape: ScrapeMetrics) {
        let single = ServerView(name: "", labels: [], target: target, snapshot: snapshot, health: health,
                                sinceLastSuccess: sinceLastSuccess, stalenessWindow: stalenessWindow)
        self.init(view: { View(snapshot: snapshot(), bodyParts: nil, single: single, servers: []) }, version: version,
                  metricsPath: metricsPath, startedAt: startedAt, wallClock: wallClock, scrape: scrape)
    }

    /// The servers of a multi-server exporter now; empty for a single server.
    package var servers: [ServerView] { view().servers }

    /// The router serving every endpoint, counting requests in ``scrape``. No route takes a
    /// request body: one is refused with 413 from its head, before a byte of it is read.
    package func makeRouter() -> WPRouter {
        var router = WPRouter(observer: scrape.requests)
        // The collector's snapshot is rendered and gzipped already: served from the event loop.
        router.get(metricsPath, takesBody: false, preRendered: true) { request in metrics(request) }
        router.get("/health", takesBody: false) { _ in healthResponse() }
        router.get("/-/healthy", takesBody: false) { _ in .text("OK\n") }
        router.get("/-/ready", takesBody: false) { _ in readiness() }
        // Only a multi-server exporter has targets; for a single server they are not found,
        // as paths that do not exist are.
        router.get("/probe", takesBody: false) { request in
            let servers = self.servers
            return servers.isEmpty ? Self.notFound : probe(request, servers: servers)
        }
        router.get("/targets", takesBody: false) { request in
            let servers = self.servers
            return servers.isEmpty ? Self.notFound : targets(request, servers: servers)
        }
        router.get("/", takesBody: false) { _ in landingPage() }
        for routes in frontEndRoutes { routes.register(&router) }
        for method in ["POST", "PUT"] {
            router.add(method, "/-/reload", HandlerFunction { _ in await reloadResponse() }, takesBody: false)
        }
        return router
    }

    /// What the server runs: the router inside `security`'s wrapper (basic authentication,
    /// extra headers), with requests the wrapper refuses (401) counted in ``scrape`` too.
    package func makeHandler(security: WebSecurity) -> any HTTPHandler {
        let router = makeRouter()
        return RefusalCounter(inner: security.wrap(router), observer: scrape.requests, paths: router.paths)
    }

    /// 200 once the first collection finished (every server's, for several), else 503.
    package func readiness() -> WPHTTPResponse {
        let view = view()
        if let single = view.single {
            return single.health().lastFinished == nil ? .text("not ready: no collection finished yet\n", status: 503) : .text("OK\n")
        }
        let waiting = Self.waitingServers(view.servers)
        return waiting.isEmpty ? .text("OK\n")
            : .text("not ready: no collection finished yet for " + waiting.joined(separator: ", ") + "\n", status: 503)
    }

    /// The snapshot plus the per-scrape part in the negotiated format, gzip when accepted.
    package func metrics(_ request: WPHTTPRequest) -> WPHTTPResponse {
        let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
        let (snapshot, bodyParts) = exposition()
        return cached(snapshot, format: format, request: request, tail: scrape.render(format: format),
                      bodyParts: bodyParts)
    }

    /// What an unknown path gets (the router's answer).
    package static var notFound: WPHTTPResponse { .text("not found\n", status: 404) }

    /// `snapshot`'s prebuilt body in `format`, gzip when the request accepts it, followed by
    /// `tail` (the per-scrape part, or OpenMetrics' `# EOF`).
    package func cached(_ snapshot: MetricsSnapshot, format: ExpositionFormat, request: WPHTTPRequest, tail: [UInt8],
                        bodyParts: (@Sendable (MetricsSnapshot, Bool) -> HTTPBodyParts?)? = nil) -> WPHTTPResponse {
        let gzip = request.acceptsGzip && snapshot.hasGzip(openMetrics: format != .text)
        var response = WPHTTPResponse(status: 200)
        response.headers.set(name: "Content-Type", value: format.contentType)
        response.headers.set(name: "Vary", value: "Accept, Accept-Encoding")
        if gzip { response.headers.set(name: "Content-Encoding", value: "gzip") }
        // The snapshot's bytes are shared, never copied: the per-scrape part goes out after
        // them as the body suffix, so a scrape costs only the small part, whatever the fleet.
        // A merged snapshot's plain body is its list of parts, written as they are.
        if gzip {
            // One gzip member: the snapshot's blocks, then the per-scrape part's and the trailer.
            (response.body, response.bodySuffix) = snapshot.gzipBody(openMetrics: format != .text, appending: tail)
        } else {
            response.body = format == .text ? snapshot.text : snapshot.openMetrics
            let slices = format == .text ? snapshot.textParts : snapshot.openMetricsParts
            if !slices.isEmpty {
                response.bodyParts = bodyParts?(snapshot, format != .text) ?? HTTPBodyParts(slices: slices)
            }
            response.bodySuffix = tail
        }
        return response
    }

    /// What a plain-text scrape gets (snapshot plus the per-scrape part), for the Pushgateway;
    /// empty until the first collection has finished.
    package func textExposition() -> [UInt8] {
        Self.textExposition(exposition().snapshot, scrape: scrape)
    }

    /// `snapshot`'s text followed by the per-scrape families of `scrape` (empty before the
    /// first collection): what a plain scrape gets.
    package static func textExposition(_ snapshot: MetricsSnapshot, scrape: ScrapeMetrics) -> [UInt8] {
        guard snapshot.generatedAt != nil else { return [] }
        return snapshot.wholeText + scrape.render(format: .text)
    }

    /// `POST /-/reload`: 403 unless the lifecycle API is enabled (as Prometheus answers), then
    /// 200 once a new configuration is applied, or 500 naming every problem of one that is not
    /// (the running configuration is kept).
    package func reloadResponse() async -> WPHTTPResponse {
        guard lifecycleEnabled, let reloader else {
            return .text("Lifecycle API is not enabled: start with --web.enable-lifecycle (server.enable_lifecycle: true).\n",
                         status: 403)
        }
        switch await reloader.reload(trigger: "POST /-/reload") {
        case .applied(let applied):
            let restart = applied.needsRestart.isEmpty ? ""
                : "; needs a restart to take effect: \(applied.needsRestart.joined(separator: ", "))"
            let warnings = applied.warnings.map { "warning: \($0)\n" }.joined()
            return .text("configuration reloaded: \(applied.summary)\(restart)\n\(warnings)")
        case .rejected(let reason):
            return .text("failed to reload the configuration; the running one is kept:\n\(reason)\n", status: 500)
        }
    }

    /// `/health`: the single server's document, or the servers' (``serversHealthResponse(_:)``).
    package func healthResponse() -> WPHTTPResponse {
        let view = view()
        return view.single.map { healthResponse($0) } ?? serversHealthResponse(view.servers)
    }

    /// The `/health` document of a single server; 200 when the last finished collection succeeded within the
    /// staleness window and the energy totals can be saved, 503 otherwise. A collection in progress changes neither.
    package func healthResponse(_ server: ServerView) -> WPHTTPResponse {
        let health = server.health()
        let now = wallClock.now
        let target = server.target
        let storage = self.storage?()
        let healthy = health.isHealthy(sinceLastSuccess: server.sinceLastSuccess(), stalenessWindow: server.stalenessWindow)
            && storage?.lastSaveSuccessful != false
        let report = HealthReport(
            status: healthy ? "healthy" : "unhealthy", version: version, uptimeSeconds: uptime(now),
            lastCollection: .init(health), winPower: .init(target: target, health: health),
            deviceCount: health.deviceCount, deviceList: .init(health), energySamplesRejected: health.energySamplesRejected,
            configReload: reloader.map { HealthReport.ConfigReload($0.status) },
            outages: health.outages.map { .init(deviceID: $0.deviceID, since: $0.since.map(Self.iso)) },
            alarms: health.alarms.map(HealthReport.DeviceAlarms.init), storage: storage)
        return Self.json(HealthDocument(report: report, sections: frontEnds().compactMap(\.health)), status: healthy ? 200 : 503)
    }

    /// Seconds since start, to the millisecond.
    package func uptime(_ now: Date) -> Double { (now.timeIntervalSince(startedAt) * 1000).rounded() / 1000 }

    /// `value` as sorted-keys JSON with a final newline (`/health`), every string's control
    /// and bidirectional formatting characters replaced (``displayable(json:)``).
    package static func json(_ value: some Encodable, status: Int) -> WPHTTPResponse {
        let body = JSONBody.encoded(value).map { Array(displayable(json: String(decoding: $0, as: UTF8.self)).utf8) + [0x0A] }
            ?? Array("{}\n".utf8)
        return .json(body, status: status)
    }

    /// JSON text whose strings show no control or bidirectional formatting character
    /// (``DisplayText``): each, raw or escaped (`\n`, `\u001b`: a client decodes those back into
    /// the character), becomes U+FFFD; other escapes are kept.
    package static func displayable(json: String) -> String {
        let scalars = Array(json.unicodeScalars)
        guard scalars.contains(where: { $0 == "\\" || DisplayText.isReplaced($0) }) else { return json }
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard scalar == "\\", index < scalars.count else {
                out.append(DisplayText.isReplaced(scalar) ? DisplayText.replacement : scalar)
                continue
            }
            let escaped = scalars[index]
            index += 1
            switch escaped {
            case "b", "f", "n", "r", "t":
                out.append(DisplayText.replacement)
            case "u" where index + 4 <= scalars.count:
                let hex = String(String.UnicodeScalarView(scalars[index..<index + 4]))
                if let code = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(code), DisplayText.isReplaced(decoded) {
                    out.append(DisplayText.replacement)
                } else {
                    out.append(contentsOf: [scalar, escaped] + scalars[index..<index + 4])
                }
                index += 4
            default:
                out.append(contentsOf: [scalar, escaped])
            }
        }
        return String(out)
    }

    /// `2025-11-22T02:27:19.123Z`: UTC, rounded to the nearest millisecond (as
    /// `ISO8601DateFormatter` does; `Date.ISO8601FormatStyle` truncates instead), clamped to
    /// the years 0001–9999.
    package static func iso(_ date: Date) -> String {
        let millis = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
        let clamped = millis.isNaN ? 0 : Int64(min(max(millis, -62_135_596_800_000), 253_402_300_799_999))
        return LogTimestamp(seconds: 0, nanoseconds: clamped * 1_000_000).description
    }

    package func landingPage() -> WPHTTPResponse {
        let view = view()
        let servers = view.servers
        let single = view.single?.target ?? ""
        let target = HTMLEscaping.escape(single.isEmpty ? "(not configured)" : single)
        let path = HTMLEscaping.escape(metricsPath)
        let source = servers.isEmpty ? "WinPower at <code>\(target)</code>"
            : "\(servers.count) WinPower servers: " + servers.map { server in
                let name = HTMLEscaping.escape(server.name)
                return "<a href=\"/probe?target=\(name)\"><code>\(name)</code></a> (<code>\(HTMLEscaping.escape(server.target))</code>)"
            }.joined(separator: ", ")
        let targets = servers.isEmpty ? "" : "<li><a href=\"/targets\">Targets</a> (Prometheus <code>http_sd_configs</code>)</li>\n"
        let status = frontEndRoutes.compactMap(\.link).map { link in
            "<li><a href=\"\(HTMLEscaping.escape(link.path))\">\(HTMLEscaping.escape(link.title))</a>"
                + (link.detail.map { " (\(HTMLEscaping.escape($0)))" } ?? "") + "</li>\n"
        }.joined()

        let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>WinPower exporter</title></head>
        <body>
        <h1>WinPower exporter</h1>
        <p>Version \(HTMLEscaping.escape(version)), exporting from \(source).</p>
        <ul>
        \(status)<li><a href="\(path)">Metrics</a> (<code>\(path)</code>)</li>
        \(targets)<li><a href="/health">Health</a> (JSON)</li>
        <li><a href="/-/healthy">Liveness</a> (<code>/-/healthy</code>)</li>
        <li><a href="/-/ready">Readiness</a> (<code>/-/ready</code>)</li>
        </ul>
        </body>
        </html>

        """
        var response = WPHTTPResponse(status: 200, body: Array(html.utf8))
        response.headers.set(name: "Content-Type", value: "text/html; charset=utf-8")
        return response
    }
}

/// The JSON body of `/health`.
package struct HealthReport: Codable, Sendable, Equatable {
    package struct LastCollection: Codable, Sendable, Equatable {
        var time: String?
        var success: Bool
        var lastSuccess: String?
        var error: String?
        var inProgress: Bool
        enum CodingKeys: String, CodingKey {
            case time, success, error
            case lastSuccess = "last_success"
            case inProgress = "in_progress"
        }
    }
    package struct WinPower: Codable, Sendable, Equatable {
        var target: String
        var reachable: Bool
        var authenticated: Bool
    }
    /// What the client's bounds left out (`winpower.max_devices`, `winpower.max_pages`,
    /// `winpower.max_text_bytes`): the counters of `winpower_exporter_devices_dropped_total` and
    /// `winpower_exporter_device_texts_truncated_total`, and why the last readout was incomplete.
    package struct DeviceList: Codable, Sendable, Equatable {
        /// Whether the last successful readout listed every device the server has.
        var complete: Bool
        /// Why it did not; absent when it did.
        var incompleteReason: String?
        /// Devices left out since start, by reason; only reasons that happened.
        var devicesDropped: [String: Int]
        var textsTruncated: Int
        enum CodingKeys: String, CodingKey {
            case complete
            case incompleteReason = "incomplete_reason"
            case devicesDropped = "devices_dropped"
            case textsTruncated = "texts_truncated"
        }

        package init(_ health: CollectorHealth) {
            complete = health.deviceListIncomplete == nil
            incompleteReason = health.deviceListIncomplete
            devicesDropped = health.devicesDropped.filter { $0.value > 0 }
            textsTruncated = health.textsTruncated
        }
    }
    package var status: String
    package var version: String
    package var uptimeSeconds: Double
    package var lastCollection: LastCollection
    package var winPower: WinPower
    package var deviceCount: Int
    /// What the client's bounds left out.
    package var deviceList: DeviceList?
    /// Implausible power readings refused since start (`winpower_device_energy_samples_rejected_total`).
    package var energySamplesRejected: Int?
    /// The last configuration reload.
    package var configReload: ConfigReload?

    package struct ConfigReload: Codable, Sendable, Equatable {
        var lastSuccessful: Bool
        var lastSuccess: String
        var lastError: String?
        /// The last applied reload's warnings; absent when it had none.
        var lastWarnings: [String]?
        var attempts: Int
        enum CodingKeys: String, CodingKey {
            case lastSuccessful = "last_successful"
            case lastSuccess = "last_success"
            case lastError = "last_error"
            case lastWarnings = "last_warnings"
            case attempts
        }

        init(_ status: ConfigReloader.Status) {
            lastSuccessful = status.lastSuccessful
            lastSuccess = Endpoints.iso(status.lastSuccess)
            lastError = status.lastError
            lastWarnings = status.lastWarnings.isEmpty ? nil : status.lastWarnings
            attempts = status.attempts
        }
    }
    /// Devices on battery now (an outage in progress, mode 4), with the outage's start.
    package var outages: [Outage] = []
    /// Devices with active alarms, with what WinPower says of each.
    package var alarms: [DeviceAlarms] = []
    /// The energy store: data directory and whether saving works.
    package var storage: StorageHealth?
    // The front ends' sections (`nut`, `snmp`) are written beside these fields
    // (`HealthDocument`).
    package struct DeviceAlarms: Codable, Sendable, Equatable {
        var deviceID: String
        var deviceName: String
        var alarms: [Alarm]
        package struct Alarm: Codable, Sendable, Equatable {
            var code: String?
            var name: String?
            var message: String?
            var id: String?
        }
        enum CodingKeys: String, CodingKey {
            case alarms
            case deviceID = "device_id"
            case deviceName = "device_name"
        }

        package init(_ device: CollectorHealth.DeviceAlarms) {
            deviceID = device.deviceID
            deviceName = device.deviceName
            alarms = device.alarms.map { Alarm(code: $0.code, name: $0.name, message: $0.message, id: $0.id) }
        }
    }
    package struct Outage: Codable, Sendable, Equatable {
        var deviceID: String
        /// ISO-8601 start; absent when unknown.
        var since: String?
        enum CodingKeys: String, CodingKey {
            case since
            case deviceID = "device_id"
        }
    }
    package enum CodingKeys: String, CodingKey {
        case status, version, outages, alarms, storage
        case uptimeSeconds = "uptime_seconds"
        case lastCollection = "last_collection"
        case winPower = "winpower"
        case deviceCount = "device_count"
        case deviceList = "device_list"
        case energySamplesRejected = "energy_samples_rejected"
        case configReload = "config_reload"
    }
}
