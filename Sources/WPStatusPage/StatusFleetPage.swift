import WPTime
import WPText
import FoundationEssentials
package import WPHistory
import WPLogging
import WPRuntime

extension StatusRender {
    /// The fleet table's headers: the UPS, its state, its sparkline, its server (with `site`
    /// labels across several servers), then ``fleetCells(_:model:text:)``' columns.
    static func fleetHeaders(_ model: StatusModel, text: StatusText) -> [String] {
        [text.ups, text.state, text.last24h] + (model.showsServer ? [text.server] : [])
            + [text.loadShort, text.battery, text.runtime, text.inOut, text.energyToday, text.energyMonth]
            + (model.currency != nil ? [text.cost] : []) + [text.lastOutage]
    }

    /// The text cells of a UPS's row in the fleet table after its name, its sparkline left out
    /// (it follows the state): the page and its JSON (which the script writes into the page)
    /// show the same. Short enough that the table holds at 1280 px.
    static func fleetCells(_ row: UPSRow, model: StatusModel, text: StatusText) -> [String] {
        var load = "–"
        switch (row.loadWatts.flatMap { $0.isFinite ? $0 : nil }, row.loadPercent.flatMap { $0.isFinite ? $0 : nil }) {
        case (let watts?, let percent?): load = number(watts, digits: 0) + " W · " + number(percent, digits: 0) + " %"
        case (let watts?, nil): load = number(watts, digits: 0) + " W"
        case (nil, let percent?): load = number(percent, digits: 0) + " %"
        case (nil, nil): break
        }
        let voltages = row.inputVoltage == nil && row.outputVoltage == nil
            ? "–" : number(row.inputVoltage, digits: 0) + " / " + number(row.outputVoltage, digits: 0)
        var outage = "–"
        if let last = row.lastOutage {
            outage = shortTime(last.start, model.timeZone)
                + (last.ongoing ? " (" + text.inProgress + ")" : last.durationSeconds.map { " (" + duration($0) + ")" } ?? "")
        }
        return [text.states[row.state] ?? row.state.rawValue] + (model.showsServer ? [row.serverDisplay] : [])
            + [load, number(row.batteryPercent, digits: 0), duration(row.runtimeSeconds), voltages,
               number(row.energyTodayKilowattHours, digits: 2), number(row.energyMonthKilowattHours, digits: 1)]
            + (model.currency != nil ? [costText(row, currency: model.currency)] : []) + [outage]
    }

    /// `2026-11-26 15:30`: the local time without seconds or offset (the page says the zone once).
    static func shortTime(_ date: Date, _ zone: TimeZoneRules) -> String {
        localTime(date, zone)?.text(.minute) ?? "–"
    }

    /// The site roll-ups' headers and cells.
    static func siteHeaders(_ model: StatusModel, text: StatusText) -> [String] {
        [text.site, text.upsCount, text.attentionHeader, text.onBatteryNow, text.energyToday, text.energyMonth]
            + (model.currency != nil ? [text.cost] : [])
    }

    static func siteCells(_ site: SiteRow, model: StatusModel, text: StatusText) -> [String] {
        [site.name.isEmpty ? text.noSite : site.name, String(site.count), String(site.attention), String(site.onBattery),
         number(site.todayKilowattHours, digits: 2), number(site.monthKilowattHours, digits: 1)]
            + (model.currency.map { [String(fixed: site.cost, fractionDigits: 2) + " " + $0] } ?? [])
    }

    /// The heading of a site's rows in the fleet table.
    static func siteHeading(_ site: SiteRow, text: StatusText) -> String {
        (site.name.isEmpty ? text.noSite : site.name) + " · \(site.count) \(text.devices)"
            + (site.attention > 0 ? " · \(site.attention) \(text.needsAttention)" : "")
    }

    /// A sparkline's points: per half hour `x` (2 units apart) and `y` from 0 % (23) to 100 % (1),
    /// one run per stretch without a gap. The script draws the JSON's values the same way.
    static func sparkRuns(_ values: [Int?]) -> [[String]] {
        var runs: [[String]] = []
        var run: [String] = []
        for (index, value) in values.enumerated() {
            guard let value else {
                if !run.isEmpty { runs.append(run) }
                run = []
                continue
            }
            let y = 23 - Double(min(max(value, 0), 100)) * 0.22
            run.append("\(index * 2 + 1)," + String(fixed: y, fractionDigits: 1))
        }
        if !run.isEmpty { runs.append(run) }
        return runs
    }

    /// A UPS's sparkline: load (%) and battery charge (%) over 24 hours, inline SVG.
    static func sparkline(_ row: UPSRow, text: StatusText) -> String {
        var out = "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 96 24\" role=\"img\" "
        out += "aria-label=\"\(escaped(text.last24h + ": " + text.loadPercent + ", " + text.battery))\">"
        for (values, name) in [(row.spark.load, "spark-load"), (row.spark.battery, "spark-battery")] {
            for run in sparkRuns(values) {
                if run.count == 1 {
                    let parts = run[0].split(separator: ",")
                    out += "<circle class=\"\(name)\" cx=\"\(parts[0])\" cy=\"\(parts[1])\" r=\"1\"/>"
                } else {
                    out += "<polyline class=\"\(name)\" points=\"\(run.joined(separator: " "))\"/>"
                }
            }
        }
        return out + "</svg>"
    }

    /// A journal event's cells in the fleet's latest events: time, UPS (or server), kind, detail;
    /// and the page of its UPS when published now.
    static func latestCells(_ event: HistoryEvent, model: StatusModel, text: StatusText) -> (cells: [String], href: String?) {
        let row = event.device.flatMap { device in model.ups.first { $0.deviceID == device && $0.server == event.server } }
        let who = row?.name ?? event.device ?? (event.kind.pair == nil ? "wpexporter" : event.server.isEmpty ? "WinPower" : event.server)
        let kind = text.kinds[event.kind] ?? event.kind.rawValue
        return ([shortTime(Date(timeIntervalSince1970: Double(event.time)), model.timeZone), who,
                 kind + (event.code.map { " " + $0 } ?? ""), event.detail],
                row.map { StatusRoutes.ups + "?" + $0.query })
    }

    /// `<td>` with its column's name for the narrow layout (`data-label`).
    static func cell(_ text: String, label: String, className: String? = nil) -> String {
        "<td data-label=\"\(escaped(label))\"\(className.map { " class=\"\($0)\"" } ?? "")>\(escaped(text))</td>"
    }

    /// `/status`: the sites' roll-ups (with several), every UPS (grouped by site), the fleet's
    /// latest events (with the history on: `latest`), each server's health.
    package static func page(_ model: StatusModel, language: StatusLanguage, latest: [HistoryEvent]? = nil) -> [UInt8] {
        let text = language.text
        var out = ""
        out.reserveCapacity(2048 + model.ups.count * 1_200)
        head(&out, title: text.title, language: language, refresh: model.refreshSeconds, self: StatusRoutes.page,
             json: StatusRoutes.json + "?lang=" + language.rawValue)
        out += "<main>\n<p class=\"summary\" id=\"summary\">\(escaped(summary(model, text: text)))</p>\n"
        out += "<p class=\"updated\">\(escaped(text.updated)) <time id=\"updated\">\(time(model.generatedAt, model.timeZone))</time></p>\n"
        if model.grouped {
            let headers = siteHeaders(model, text: text)
            out += "<h2>\(escaped(text.sites))</h2>\n<div class=\"scroll\"><table id=\"site-table\" class=\"cards\"><thead><tr>"
            for header in headers { out += "<th>\(escaped(header))</th>" }
            out += "</tr></thead>\n<tbody>\n"
            for site in model.sites {
                out += "<tr class=\"\(site.attention > 0 ? "attention" : "normal")\">"
                for (cell, header) in zip(siteCells(site, model: model, text: text), headers) { out += self.cell(cell, label: header) }
                out += "</tr>\n"
            }
            out += "</tbody></table></div>\n"
        }
        let headers = fleetHeaders(model, text: text)
        out += "<div class=\"scroll\"><table id=\"ups-table\" class=\"cards\">\n<thead><tr>"
        for header in headers { out += "<th>\(escaped(header))</th>" }
        out += "</tr></thead>\n<tbody>\n"
        var site: String?
        for row in model.ups {
            if model.grouped, row.site != site, let rollUp = model.sites.first(where: { $0.name == row.site }) {
                out += "<tr class=\"site\"><th colspan=\"\(headers.count)\" scope=\"colgroup\">\(escaped(siteHeading(rollUp, text: text)))</th></tr>\n"
                site = row.site
            }
            out += "<tr class=\"state-\(row.state.rawValue)\(row.state.needsAttention ? " attention" : "")\">"
            out += "<td class=\"name\"><a href=\"\(StatusRoutes.ups)?\(escaped(row.query))&amp;lang=\(language.rawValue)\">\(escaped(row.name))</a></td>"
            let cells = fleetCells(row, model: model, text: text)
            out += "<td class=\"state\" data-label=\"\(escaped(headers[1]))\"><span class=\"badge\">\(escaped(cells[0]))</span></td>"
            out += "<td class=\"spark\" data-label=\"\(escaped(headers[2]))\">\(sparkline(row, text: text))</td>"
            for (cell, header) in zip(cells.dropFirst(), headers.dropFirst(3)) { out += self.cell(cell, label: header) }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>\n"
        if let latest {
            out += "<h2>\(escaped(text.latestEvents))</h2>\n"
            if latest.isEmpty {
                out += "<p>\(escaped(text.noEvents))</p>\n"
            }
            let eventHeaders = [text.eventTime, text.ups, text.eventKind, text.eventDetail]
            out += "<div class=\"scroll\"><table id=\"latest-events\" class=\"cards\"><thead><tr>"
            for header in eventHeaders { out += "<th>\(escaped(header))</th>" }
            out += "</tr></thead><tbody>\n"
            for event in latest {
                let (cells, href) = latestCells(event, model: model, text: text)
                out += "<tr class=\"event-\(StatusChart.severity(event.kind))\">" + cell(cells[0], label: eventHeaders[0])
                if let href {
                    out += "<td data-label=\"\(escaped(eventHeaders[1]))\"><a href=\"\(escaped(href))&amp;lang=\(language.rawValue)\">\(escaped(cells[1]))</a></td>"
                } else {
                    out += cell(cells[1], label: eventHeaders[1])
                }
                out += cell(cells[2], label: eventHeaders[2]) + cell(cells[3], label: eventHeaders[3]) + "</tr>\n"
            }
            out += "</tbody></table></div>\n"
            out += "<p class=\"downloads\">\(escaped(text.allEvents)): <a href=\"\(StatusRoutes.eventsCSV)\">CSV</a> "
            out += "<a href=\"\(StatusRoutes.eventsJSON)\">JSON</a></p>\n"
        }
        out += "<h2>\(escaped(text.servers))</h2>\n<div class=\"scroll\"><table id=\"server-table\"><tbody>\n"
        for server in model.servers {
            out += "<tr class=\"\(server.healthy ? "healthy" : "unhealthy")\">"
            for cell in serverCells(server, text: text, zone: model.timeZone) { out += "<td>\(escaped(cell))</td>" }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>\n"
        if let since = model.energySince { out += "<p class=\"note\">\(escaped(text.energySince)) \(time(since, model.timeZone))</p>\n" }
        out += "</main>\n</body>\n</html>\n"
        return Array(out.utf8)
    }

    /// `/status.json`: what the page shows, its cells already in the reader's language.
    package static func json(_ model: StatusModel, language: StatusLanguage, latest: [HistoryEvent]? = nil) -> [UInt8] {
        let text = language.text
        struct Spark: Encodable {
            var load: [Int?], battery: [Int?]
        }
        struct UPS: Encodable {
            var server: String, deviceID: String, name: String, state: String, attention: Bool, href: String, site: String
            var cells: [String]
            var spark: Spark
            var loadWatts: Double?, loadPercent: Double?, batteryPercent: Double?, runtimeSeconds: Double?
            var inputVoltage: Double?, outputVoltage: Double?, energyKilowattHours: Double?
            var energyTodayKilowattHours: Double?, energyMonthKilowattHours: Double?
            var costs: [String: Double]
            enum CodingKeys: String, CodingKey {
                case server, name, state, attention, href, site, cells, spark, costs
                case deviceID = "device_id", loadWatts = "load_watts", loadPercent = "load_percent"
                case batteryPercent = "battery_percent", runtimeSeconds = "runtime_seconds"
                case inputVoltage = "input_voltage", outputVoltage = "output_voltage"
                case energyKilowattHours = "energy_kwh", energyTodayKilowattHours = "energy_today_kwh"
                case energyMonthKilowattHours = "energy_month_kwh"
            }
        }
        struct Site: Encodable {
            var name: String, heading: String, attention: Int, cells: [String]
        }
        struct Server: Encodable {
            var name: String, healthy: Bool, cells: [String]
        }
        struct Event: Encodable {
            var time: String, kind: String, severity: String, href: String?, cells: [String]
        }
        struct Document: Encodable {
            var generatedAt: String, updated: String, summary: String, refreshSeconds: Int, currency: String?
            var ups: [UPS], servers: [Server], sites: [Site], events: [Event]?
            enum CodingKeys: String, CodingKey {
                case updated, summary, currency, ups, servers, sites, events
                case generatedAt = "generated_at", refreshSeconds = "refresh_seconds"
            }
        }
        func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
        let document = Document(
            generatedAt: isoTime(model.generatedAt), updated: time(model.generatedAt, model.timeZone), summary: summary(model, text: text),
            refreshSeconds: model.refreshSeconds, currency: model.currency,
            ups: model.ups.map { row in
                UPS(server: DisplayText.sanitized(row.server), deviceID: DisplayText.sanitized(row.deviceID),
                    name: DisplayText.sanitized(row.name), state: row.state.rawValue,
                    attention: row.state.needsAttention,
                    href: StatusRoutes.ups + "?" + row.query + "&lang=" + language.rawValue, site: DisplayText.sanitized(row.site),
                    cells: fleetCells(row, model: model, text: text).map(DisplayText.sanitized),
                    spark: Spark(load: row.spark.load, battery: row.spark.battery),
                    loadWatts: finite(row.loadWatts), loadPercent: finite(row.loadPercent),
                    batteryPercent: finite(row.batteryPercent), runtimeSeconds: finite(row.runtimeSeconds),
                    inputVoltage: finite(row.inputVoltage), outputVoltage: finite(row.outputVoltage),
                    energyKilowattHours: finite(row.energyKilowattHours),
                    energyTodayKilowattHours: finite(row.energyTodayKilowattHours),
                    energyMonthKilowattHours: finite(row.energyMonthKilowattHours),
                    costs: Dictionary(row.costs.map { ($0.period, $0.amount) }, uniquingKeysWith: +))
            },
            servers: model.servers.map { server in
                Server(name: DisplayText.sanitized(server.name), healthy: server.healthy,
                       cells: serverCells(server, text: text, zone: model.timeZone).map(DisplayText.sanitized))
            },
            sites: model.grouped ? model.sites.map { site in
                Site(name: DisplayText.sanitized(site.name), heading: DisplayText.sanitized(siteHeading(site, text: text)),
                     attention: site.attention, cells: siteCells(site, model: model, text: text).map(DisplayText.sanitized))
            } : [],
            events: latest.map { events in
                events.map { event in
                    let (cells, href) = latestCells(event, model: model, text: text)
                    return Event(time: HistoryQuery.utc(event.time), kind: event.kind.rawValue, severity: StatusChart.severity(event.kind),
                                 href: href.map { $0 + "&lang=" + language.rawValue }, cells: cells.map(DisplayText.sanitized))
                }
            })
        return encoded(document)
    }
}
