import FoundationEssentials
import WPCompression
import WPConfig
import WPHistory
package import WPFrontEnd
package import WPServer
import WPWallClock

/// The routes of the status pages on the exporter's HTTP listener (so its TLS and basic
/// authentication apply): every path exact, so the request metrics' `handler` label stays
/// bounded whatever the fleet; a UPS is chosen by query (`device`, and `server` with `servers`).
///
/// | path | what |
/// |---|---|
/// | `/status` | every UPS of every server, attention first; each server's health |
/// | `/status.json` | the same as JSON (what the page's script updates from) |
/// | `/status/ups?device=…[&server=…]` | one UPS: readings, 24 h charts, outages (cached per publication) |
/// | `/status/outages.csv?…`, `/status/outages.json?…` | its outages |
/// | `/status/history.csv?…`, `/status/history.json?…` | its history from `history.db` (``HistoryQuery``) |
/// | `/status/events.csv?…`, `/status/events.json?…` | the event journal, of a UPS or the fleet (``HistoryEventQuery``) |
/// | `/status/style.css`, `/status/status.js` | the page's style and script (same origin) |
package enum StatusRoutes {
    package static let page = "/status"
    package static let json = "/status.json"
    package static let ups = "/status/ups"
    package static let outagesCSV = "/status/outages.csv"
    package static let outagesJSON = "/status/outages.json"
    package static let historyCSV = "/status/history.csv"
    package static let historyJSON = "/status/history.json"
    package static let eventsCSV = "/status/events.csv"
    package static let eventsJSON = "/status/events.json"
    package static let style = "/status/style.css"
    package static let script = "/status/status.js"

    /// The Content-Security-Policy of every status response: nothing from anywhere but the
    /// exporter, no inline script or style, no framing, no form.
    package static let contentSecurityPolicy =
        "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// `body` with `contentType` and the status pages' security headers.
    package static func response(_ body: [UInt8], contentType: String, status: Int = 200,
                                 cacheable: Bool = false) -> WPHTTPResponse {
        var response = WPHTTPResponse(status: status, body: body)
        response.headers.set(name: "Content-Type", value: contentType)
        response.headers.set(name: "Content-Security-Policy", value: contentSecurityPolicy)
        response.headers.set(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.set(name: "Referrer-Policy", value: "no-referrer")
        response.headers.set(name: "X-Frame-Options", value: "DENY")
        response.headers.set(name: "Cache-Control", value: cacheable ? "max-age=3600" : "no-store")
        if !cacheable { response.headers.set(name: "Vary", value: "Accept-Language") }
        return response
    }
}

extension StatusPage {
    /// Adds the status routes to `router`. The page routes render on Swift's pool (not
    /// pre-rendered), each body once per publication; the style and script are constant bytes,
    /// served from the event loop.
    package func register(in router: inout WPRouter) {
        router.get(StatusRoutes.page, takesBody: false) { request in
            await self.fleetPage(request, name: "html", contentType: "text/html; charset=utf-8", render: StatusRender.page)
        }
        router.get(StatusRoutes.json, takesBody: false) { request in
            await self.fleetPage(request, name: "json", contentType: "application/json", render: StatusRender.json)
        }
        router.get(StatusRoutes.ups, takesBody: false) { request in await self.upsPage(request) }
        router.get(StatusRoutes.outagesCSV, takesBody: false) { request in self.outagesDownload(request, csv: true) }
        router.get(StatusRoutes.outagesJSON, takesBody: false) { request in self.outagesDownload(request, csv: false) }
        router.get(StatusRoutes.historyCSV, takesBody: false) { request in await self.historyDownload(request, csv: true) }
        router.get(StatusRoutes.historyJSON, takesBody: false) { request in await self.historyDownload(request, csv: false) }
        router.get(StatusRoutes.eventsCSV, takesBody: false) { request in await self.eventsDownload(request, csv: true) }
        router.get(StatusRoutes.eventsJSON, takesBody: false) { request in await self.eventsDownload(request, csv: false) }
        router.get(StatusRoutes.style, takesBody: false, preRendered: true) { _ in
            StatusRoutes.response(StatusAssets.style, contentType: "text/css; charset=utf-8", cacheable: true)
        }
        router.get(StatusRoutes.script, takesBody: false, preRendered: true) { _ in
            StatusRoutes.response(StatusAssets.script, contentType: "text/javascript; charset=utf-8", cacheable: true)
        }
    }

    /// ``register(in:)`` as the routes of a front end, linked from the exporter's index page.
    package var routes: FrontEndRoutes? {
        FrontEndRoutes(link: FrontEndRoutes.Link(path: StatusRoutes.page, title: "Status", detail: "every UPS, attention first")) { [self] router in register(in: &router) }
    }

    /// The body named `name` of the current publication, gzip-compressed once per publication
    /// for the requests that accept it (browsers refreshing do): no request compresses it again.
    func cachedResponse(_ name: String, _ request: WPHTTPRequest, contentType: String, limit: Int = .max,
                        _ render: (StatusModel) -> [UInt8]) -> WPHTTPResponse {
        guard request.acceptsGzip else { return StatusRoutes.response(cached(name, limit: limit, render), contentType: contentType) }
        // Rendered and compressed from the same model: never a body of one publication under another's name.
        let compressed = cached(name + ".gz", limit: limit) { Gzip.compress(render($0)) ?? [] }
        guard !compressed.isEmpty else { return StatusRoutes.response(cached(name, limit: limit, render), contentType: contentType) }
        return Self.gzipped(compressed, contentType: contentType)
    }

    /// The body named `name` of the current publication as ``cachedResponse(_:_:contentType:limit:_:)``
    /// gives it, when rendered already; `nil` when not.
    func cachedResponse(_ name: String, _ request: WPHTTPRequest, contentType: String) -> WPHTTPResponse? {
        if request.acceptsGzip, let compressed = cachedBody(name + ".gz"), !compressed.isEmpty {
            return Self.gzipped(compressed, contentType: contentType)
        }
        return cachedBody(name).map { StatusRoutes.response($0, contentType: contentType) }
    }

    static func gzipped(_ compressed: [UInt8], contentType: String) -> WPHTTPResponse {
        var response = StatusRoutes.response(compressed, contentType: contentType)
        response.headers.set(name: "Content-Encoding", value: "gzip")
        response.headers.set(name: "Vary", value: "Accept-Language, Accept-Encoding")
        return response
    }

    /// Events `/status` lists, at most (the fleet's newest, of the last 30 days).
    static var latestListed: Int { 10 }

    /// `/status` or `/status.json`: rendered once per publication and language, with the fleet's
    /// latest events read from the history database first (when it is on and the body is not kept).
    func fleetPage(_ request: WPHTTPRequest, name: String, contentType: String,
                   render: @escaping (StatusModel, StatusLanguage, [HistoryEvent]?) -> [UInt8]) async -> WPHTTPResponse {
        let language = Self.language(request)
        let key = name + "-" + language.rawValue
        var latest: [HistoryEvent]?
        if let source = historySource, source.settings().enabled {
            if let kept = cachedResponse(key, request, contentType: contentType) { return kept }
            let now = wallClock.unixSeconds
            switch await source.reader.events(HistoryEventQuery(ups: nil, from: now - 30 * 86_400, to: now + 1, limit: Self.latestListed)) {
            case .success(let events): latest = events
            case .failure:
                // Said on a UPS's page and by the API; here the list is left out (kept for the
                // publication under a name of its own: the next publication asks again).
                return cachedResponse(key + "-without-events", request, contentType: contentType) { render($0, language, nil) }
            }
        }
        return cachedResponse(key, request, contentType: contentType) { render($0, language, latest) }
    }

    static func language(_ request: WPHTTPRequest) -> StatusLanguage {
        StatusLanguage.negotiate(query: request.queryValue("lang"), acceptLanguage: request.headers["Accept-Language"])
    }

    /// The UPS a request names (`device`, `server`), when published now.
    func row(_ request: WPHTTPRequest) -> UPSRow? {
        guard let device = request.queryValue("device") else { return nil }
        return row(device: device, server: request.queryValue("server") ?? "")
    }

    /// The UPS `device` of `server`, when published now.
    func row(device: String, server: String) -> UPSRow? {
        model.ups.first { $0.deviceID == device && $0.server == server }
    }

    /// A UPS's page: with the history on, its range (`range`, default `24h`) and its event
    /// list (`kind`) read from the database on the history reader's threads, then rendered once
    /// per publication, language, range and filter; with the history off, the last 24 hours the
    /// page keeps in memory.
    func upsPage(_ request: WPHTTPRequest) async -> WPHTTPResponse {
        let language = Self.language(request)
        let html = "text/html; charset=utf-8"
        guard let row = row(request) else {
            return StatusRoutes.response(StatusRender.notFound(language: language), contentType: html, status: 404)
        }
        func details(_ model: StatusModel, trend: StatusRender.UPSTrend?) -> StatusRender.UPSDetails {
            // The row of the publication rendered (the database was read meanwhile: a newer one may be current).
            let row = model.ups.first { $0.deviceID == row.deviceID && $0.server == row.server } ?? row
            return StatusRender.UPSDetails(
                row: row, model: model, history: history(server: row.server, device: row.deviceID) ?? [],
                outages: outages(server: row.server, device: row.deviceID) ?? [],
                exposition: exposition(server: row.server, device: row.deviceID), now: model.generatedAt,
                trend: trend)
        }
        let name = "ups-" + language.rawValue + "-" + row.server + "\u{1F}" + row.deviceID
        guard let source = historySource, source.settings().enabled else {
            // Rendered once per publication and language (gzip too, for browsers), as /status is.
            return cachedResponse(name, request, contentType: html, limit: Self.bodiesCached) { model in
                StatusRender.upsPage(details(model, trend: nil), language: language)
            }
        }
        let (range, kind) = (request.queryValue("range") ?? "24h", request.queryValue("kind") ?? "")
        // Only the page's own ranges and filters are kept (any other range the API takes is
        // rendered for its request alone): the cache holds a bounded set whatever is asked.
        let key = name + "\u{1F}" + range + "\u{1F}" + kind
        let keepable = StatusRender.pageRanges.contains(range)
            && (kind.isEmpty || StatusRender.kindGroups.contains { $0.kinds.map(\.rawValue).joined(separator: ",") == kind })
        if keepable, let kept = cachedResponse(key, request, contentType: html) { return kept }
        let (trend, status) = await self.trend(row, range: range, kind: kind, source: source)
        guard trend.problem == nil, keepable else {
            // Not kept: the next request asks the database again.
            return StatusRoutes.response(StatusRender.upsPage(details(model, trend: trend), language: language), contentType: html,
                                         status: status)
        }
        return cachedResponse(key, request, contentType: html, limit: Self.bodiesCached) { model in
            StatusRender.upsPage(details(model, trend: trend), language: language)
        }
    }

    /// Events a UPS page's charts mark, at most (the newest of its range).
    static var marksRead: Int { 500 }
    /// Events a UPS page lists, at most (the newest of its range and filter).
    static var eventsListed: Int { 200 }

    /// What the history database holds of `row` over `range` (``HistoryQuery``'s ranges) and
    /// its events of the kinds `kind` names (``HistoryEventQuery``'s), and the page's status:
    /// 400 for a range or kind the API would refuse (said in the page, over the last 24 hours).
    func trend(_ row: UPSRow, range: String, kind: String, source: StatusHistorySource) async -> (StatusRender.UPSTrend, Int) {
        let now = wallClock.unixSeconds
        let values = ["device": row.deviceID, "server": row.server, "range": range, "kind": kind]
        let parameter: (String) -> String? = { name in values[name].flatMap { $0.isEmpty ? nil : $0 } }
        let query: HistoryQuery
        let kinds: [HistoryEvent.Kind]
        switch (HistoryQuery.parse(parameter, now: now, retention: source.settings()), HistoryEventQuery.parse(parameter, now: now)) {
        case (.success(let slots), .success(let events)): (query, kinds) = (slots, events.kinds)
        case (.failure(let error), _), (_, .failure(let error)):
            // Said in the page, over the last 24 hours.
            var (trend, _) = await self.trend(row, range: "24h", kind: "", source: source)
            trend.problem = error.message
            return (trend, error.status)
        }
        var trend = StatusRender.UPSTrend(range: range, kind: kind, from: query.from, to: query.to, step: query.tier.seconds)
        var status = 200
        // One read: the chart's slots, the marks, the outages shaded (the power events of the
        // range on their own: alarms flapping cannot push them out of the marks) and, with a
        // filter, the list.
        let power: [HistoryEvent.Kind] = [.onBattery, .mainsBack]
        var asked = [HistoryEventQuery(ups: query.ups, from: query.from, to: query.to, limit: Self.marksRead),
                     HistoryEventQuery(ups: query.ups, kinds: power, from: query.from, to: query.to, limit: Self.marksRead)]
        if !kinds.isEmpty {
            asked.append(HistoryEventQuery(ups: query.ups, kinds: kinds, from: query.from, to: query.to, limit: Self.eventsListed + 1))
        }
        switch await source.reader.slots(query, events: asked) {
        case .success(let read):
            trend.slots = read.slots ?? []
            trend.marks = read.events[0]
            trend.power = read.events[1]
            trend.powerLimited = read.events[1].count >= Self.marksRead
            let listed = kinds.isEmpty ? read.events[0] : read.events[2]
            trend.listed = Array(listed.prefix(Self.eventsListed))
            trend.listLimited = listed.count > Self.eventsListed
        case .failure(let error):
            trend.problem = error.message
            status = error.status
        }
        return (trend, status)
    }

    /// The most bodies a publication's cache keeps (the UPS pages beyond are rendered for their
    /// request alone): 512 bodies of about 12 KB, 3 KB compressed.
    static var bodiesCached: Int { 512 }

    func outagesDownload(_ request: WPHTTPRequest, csv: Bool) -> WPHTTPResponse {
        guard let row = row(request), let outages = outages(server: row.server, device: row.deviceID) else {
            return StatusRoutes.response(Array("not found\n".utf8), contentType: "text/plain; charset=utf-8", status: 404)
        }
        return Self.download(csv ? StatusRender.outagesCSV(outages) : StatusRender.outagesJSON(outages, row: row), csv: csv,
                             name: "outages", device: row.deviceID)
    }

    /// A UPS's history (``HistoryQuery``) as CSV or JSON, read on the history reader's threads;
    /// what is wrong with a request is said in a plain-text 400.
    func historyDownload(_ request: WPHTTPRequest, csv: Bool) async -> WPHTTPResponse {
        guard let source = historySource, source.settings().enabled else { return Self.historyOff }
        let now = wallClock.unixSeconds
        let query: HistoryQuery
        switch HistoryQuery.parse({ request.queryValue($0) }, now: now, retention: source.settings()) {
        case .success(let parsed): query = parsed
        case .failure(let error): return Self.plain(error.message, status: error.status)
        }
        let slots: [HistorySlot]
        switch await source.reader.slots(query) {
        case .failure(let error): return Self.plain(error.message, status: error.status)
        case .success(let found?): slots = found
        case .success(nil):
            // Published but nothing written yet (its first slot is still open): an empty answer.
            guard isPublished(query.ups) else { return Self.unknown(query.ups) }
            slots = []
        }
        return Self.download(csv ? StatusRender.historyCSV(slots) : StatusRender.historyJSON(slots, query: query), csv: csv,
                             name: "history", device: query.ups.device)
    }

    /// The journal's events (``HistoryEventQuery``) as CSV or JSON, read on the history
    /// reader's threads; what is wrong with a request is said in a plain-text 400.
    func eventsDownload(_ request: WPHTTPRequest, csv: Bool) async -> WPHTTPResponse {
        guard let source = historySource, source.settings().enabled else { return Self.historyOff }
        let now = wallClock.unixSeconds
        let query: HistoryEventQuery
        switch HistoryEventQuery.parse({ request.queryValue($0) }, now: now) {
        case .success(let parsed): query = parsed
        case .failure(let error): return Self.plain(error.message, status: error.status)
        }
        let events: [HistoryEvent]
        switch await source.reader.events(query) {
        case .failure(let error): return Self.plain(error.message, status: error.status)
        case .success(let found): events = found
        }
        if events.isEmpty, let ups = query.ups, !isPublished(ups) { return Self.unknown(ups) }
        return Self.download(csv ? StatusRender.eventsCSV(events) : StatusRender.eventsJSON(events, query: query), csv: csv,
                             name: "events", device: query.ups?.device)
    }

    /// Whether `ups` is published now.
    func isPublished(_ ups: HistoryUPS) -> Bool {
        row(device: ups.device, server: ups.server) != nil
    }

    static func plain(_ text: String, status: Int) -> WPHTTPResponse {
        StatusRoutes.response(Array((text + "\n").utf8), contentType: "text/plain; charset=utf-8", status: status)
    }

    static var historyOff: WPHTTPResponse {
        plain("the history is off (history.enabled is false, or the exporter keeps no data directory)", status: 404)
    }

    static func unknown(_ ups: HistoryUPS) -> WPHTTPResponse {
        plain("unknown device \(HistoryQuery.quoted(ups.device))"
              + (ups.server.isEmpty ? "" : " of server \(HistoryQuery.quoted(ups.server))")
              + ": not published now and not in the history", status: 400)
    }

    /// `body` as an attachment named `<name>[-<device>].csv|json`.
    static func download(_ body: [UInt8], csv: Bool, name: String, device: String?) -> WPHTTPResponse {
        let suffix = device.map { "-" + String($0.unicodeScalars.filter { $0.properties.isASCIIHexDigit || $0 == "-" }.prefix(64)) } ?? ""
        var response = csv
            ? StatusRoutes.response(body, contentType: "text/csv; charset=utf-8")
            : StatusRoutes.response(body, contentType: "application/json")
        response.headers.set(name: "Content-Disposition", value: "attachment; filename=\"\(name)\(suffix).\(csv ? "csv" : "json")\"")
        return response
    }
}
