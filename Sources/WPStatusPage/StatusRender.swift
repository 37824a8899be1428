import FoundationEssentials
import WPLogging
import WPRuntime
import WPServer

/// The status pages as bytes: HTML (every text escaped once, by ``HTMLEscaping``, after
/// ``DisplayText`` made it displayable), JSON, CSV and the charts' inline SVG. No inline script,
/// style or event handler: the Content-Security-Policy allows none.
package enum StatusRender {
    /// Text made displayable and escaped for HTML.
    static func escaped(_ text: String) -> String {
        HTMLEscaping.escape(DisplayText.sanitized(text))
    }

    /// `2026-11-26T15:30:00.000Z`: the local time of `date` in `zone` in the shape of an RFC 3339
    /// UTC timestamp (its `Z` meaning nothing); `nil` for a date that is not finite or is beyond
    /// any calendar (a broken wall clock).
    static func localTimestamp(_ date: Date, _ zone: TimeZoneRules) -> String? {
        guard date.timeIntervalSince1970.isFinite, abs(date.timeIntervalSince1970) < 1e15 else { return nil }
        let utc = Int64(date.timeIntervalSince1970.rounded(.down))
        return LogTimestamp(secondsSince1970: Double(utc + Int64(zone.offset(at: utc)))).description
    }

    /// `2026-11-26 15:30:00 UTC+08:00` (`… UTC` in UTC): the local time in `zone`, with its offset.
    static func time(_ date: Date?, _ zone: TimeZoneRules) -> String {
        guard let date, let iso = localTimestamp(date, zone) else { return "–" }
        let utc = Int64(date.timeIntervalSince1970.rounded(.down))
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(8)) + " " + zone.label(at: utc)
    }

    /// `2026-11-26T07:30:00Z`, or empty.
    static func isoTime(_ date: Date?) -> String {
        guard let date else { return "" }
        let iso = LogTimestamp(secondsSince1970: date.timeIntervalSince1970).description
        return String(iso.prefix(19)) + "Z"
    }

    static func number(_ value: Double?, digits: Int) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(fixed: value, fractionDigits: digits)
    }

    static func duration(_ seconds: Double?) -> String {
        seconds.flatMap(String.init(compactDuration:)) ?? "–"
    }

    static func costText(_ row: UPSRow, currency: String?) -> String {
        guard let currency, !row.costs.isEmpty else { return "–" }
        let total = row.costs.reduce(0) { $0 + $1.amount }
        return String(fixed: total, fractionDigits: 2) + " " + currency
    }

    static func outageText(_ outage: OutageRecord?, text: StatusText, zone: TimeZoneRules) -> String {
        guard let outage else { return "–" }
        if outage.ongoing { return time(outage.start, zone) + " (" + text.inProgress + ")" }
        return time(outage.start, zone) + (outage.durationSeconds.map { " (" + duration($0) + ")" } ?? "")
    }

    /// The cells of a UPS's row after its name (its state first: on a phone it stays in view),
    /// in the order of ``headers(_:)``: the page and
    /// its JSON (which the script writes into the page) show the same.
    static func cells(_ row: UPSRow, model: StatusModel, text: StatusText) -> [String] {
        [text.states[row.state] ?? row.state.rawValue, row.serverDisplay, number(row.loadWatts, digits: 0),
         number(row.loadPercent, digits: 0), number(row.batteryPercent, digits: 0), duration(row.runtimeSeconds),
         number(row.inputVoltage, digits: 1), number(row.outputVoltage, digits: 1),
         number(row.energyTodayKilowattHours, digits: 3), number(row.energyMonthKilowattHours, digits: 3),
         number(row.energyKilowattHours, digits: 3), costText(row, currency: model.currency),
         outageText(row.lastOutage, text: text, zone: model.timeZone)]
    }

    static func headers(_ text: StatusText) -> [String] {
        [text.ups, text.state, text.server, text.load, text.loadPercent, text.battery, text.runtime, text.inputVoltage,
         text.outputVoltage, text.energyToday, text.energyMonth, text.energy, text.cost, text.lastOutage]
    }

    static func serverCells(_ server: ServerRow, text: StatusText, zone: TimeZoneRules) -> [String] {
        [server.name, server.healthy ? text.healthy : text.unhealthy, "\(server.deviceCount) \(text.devices)",
         text.lastSuccess + ": " + (server.lastSuccess.map { time($0, zone) } ?? text.never),
         server.lastError.map { text.lastError + ": " + $0 } ?? ""]
    }

    static func summary(_ model: StatusModel, text: StatusText) -> String {
        if model.ups.isEmpty { return text.noUPS }
        let count = model.attentionCount
        return count == 0 ? text.allNormal : "\(count) \(text.ups) \(text.needsAttention)"
    }

    /// The head of every page, the language switch and the heading.
    static func head(_ out: inout String, title: String, language: StatusLanguage, refresh: Int?, self path: String,
                     json: String?, script: Bool = false) {
        out += "<!DOCTYPE html>\n<html lang=\"\(language.htmlTag)\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // A page with the script is updated or reloaded by it; the meta refresh is for a browser without.
        // (A UPS page with the script reloads itself by the script: its range may have changed in place.)
        let scripted = json != nil || script
        if let refresh {
            let meta = "<meta http-equiv=\"refresh\" content=\"\(refresh)\">"
            out += scripted ? "<noscript>" + meta + "</noscript>\n" : meta + "\n"
        }
        out += "<title>\(escaped(title))</title>\n<link rel=\"stylesheet\" href=\"\(StatusRoutes.style)\">\n"
        if scripted { out += "<script src=\"\(StatusRoutes.script)\" defer></script>\n" }
        out += "</head>\n<body"
        if let json { out += " data-json=\"\(escaped(json))\"" }
        if scripted, let refresh { out += " data-refresh=\"\(refresh)\"" }
        out += ">\n<header><h1>\(escaped(title))</h1><nav class=\"lang\">"
        let separator = path.contains("?") ? "&amp;" : "?"
        out += "<a href=\"\(escaped(path))\(separator)lang=en\" hreflang=\"en\" lang=\"en\">English</a> "
        out += "<a href=\"\(escaped(path))\(separator)lang=zh\" hreflang=\"zh-CN\" lang=\"zh-CN\">中文</a></nav></header>\n"
    }

    /// `/status`.
    package static func page(_ model: StatusModel, language: StatusLanguage) -> [UInt8] {
        let text = language.text
        var out = ""
        out.reserveCapacity(1024 + model.ups.count * 600)
        head(&out, title: text.title, language: language, refresh: model.refreshSeconds, self: StatusRoutes.page,
             json: StatusRoutes.json + "?lang=" + language.rawValue)
        out += "<main>\n<p class=\"summary\" id=\"summary\">\(escaped(summary(model, text: text)))</p>\n"
        out += "<p class=\"updated\">\(escaped(text.updated)) <time id=\"updated\">\(time(model.generatedAt, model.timeZone))</time></p>\n"
        out += "<div class=\"scroll\"><table id=\"ups-table\">\n<thead><tr>"
        for header in headers(text) { out += "<th>\(escaped(header))</th>" }
        out += "</tr></thead>\n<tbody>\n"
        for row in model.ups {
            out += "<tr class=\"state-\(row.state.rawValue)\(row.state.needsAttention ? " attention" : "")\">"
            out += "<td><a href=\"\(StatusRoutes.ups)?\(escaped(row.query))&amp;lang=\(language.rawValue)\">\(escaped(row.name))</a></td>"
            for (index, cell) in cells(row, model: model, text: text).enumerated() {
                out += index == 0 ? "<td class=\"state\"><span class=\"badge\">\(escaped(cell))</span></td>" : "<td>\(escaped(cell))</td>"
            }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>\n<h2>\(escaped(text.servers))</h2>\n<div class=\"scroll\"><table id=\"server-table\"><tbody>\n"
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
    package static func json(_ model: StatusModel, language: StatusLanguage) -> [UInt8] {
        let text = language.text
        struct UPS: Encodable {
            var server: String, deviceID: String, name: String, state: String, attention: Bool, href: String
            var cells: [String]
            var loadWatts: Double?, loadPercent: Double?, batteryPercent: Double?, runtimeSeconds: Double?
            var inputVoltage: Double?, outputVoltage: Double?, energyKilowattHours: Double?
            var energyTodayKilowattHours: Double?, energyMonthKilowattHours: Double?
            var costs: [String: Double]
            enum CodingKeys: String, CodingKey {
                case server, name, state, attention, href, cells, costs
                case deviceID = "device_id", loadWatts = "load_watts", loadPercent = "load_percent"
                case batteryPercent = "battery_percent", runtimeSeconds = "runtime_seconds"
                case inputVoltage = "input_voltage", outputVoltage = "output_voltage"
                case energyKilowattHours = "energy_kwh", energyTodayKilowattHours = "energy_today_kwh"
                case energyMonthKilowattHours = "energy_month_kwh"
            }
        }
        struct Server: Encodable {
            var name: String, healthy: Bool, cells: [String]
        }
        struct Document: Encodable {
            var generatedAt: String, updated: String, summary: String, refreshSeconds: Int, currency: String?
            var ups: [UPS], servers: [Server]
            enum CodingKeys: String, CodingKey {
                case updated, summary, currency, ups, servers
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
                    href: StatusRoutes.ups + "?" + row.query + "&lang=" + language.rawValue,
                    cells: cells(row, model: model, text: text).map(DisplayText.sanitized),
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
            })
        return encoded(document)
    }

    static func encoded(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(value)).map(Array.init) ?? Array("{}".utf8)) + [0x0A]
    }

    /// A page saying the UPS is not published now.
    package static func notFound(language: StatusLanguage) -> [UInt8] {
        let text = language.text
        var out = ""
        head(&out, title: text.title, language: language, refresh: nil, self: StatusRoutes.page, json: nil)
        out += "<main><p>\(escaped(text.notFound))</p><p><a href=\"\(StatusRoutes.page)?lang=\(language.rawValue)\">"
        out += "\(escaped(text.back))</a></p></main>\n</body>\n</html>\n"
        return Array(out.utf8)
    }

    /// The outages as CSV (RFC 4180, a header line; times in UTC, ISO 8601); every field is a
    /// time or a number.
    package static func outagesCSV(_ outages: [OutageRecord]) -> [UInt8] {
        var out = "start,end,duration_seconds,lowest_battery_percent,energy_on_battery_wh,ongoing\r\n"
        func value(_ number: Double?, _ digits: Int) -> String {
            guard let number, number.isFinite else { return "" }
            return String(fixed: number, fractionDigits: digits)
        }
        for outage in outages {
            out += [isoTime(outage.start), isoTime(outage.end), value(outage.durationSeconds, 0),
                    value(outage.lowestBatteryPercent, 0), value(outage.energyOnBatteryWattHours, 3),
                    outage.ongoing ? "true" : "false"].joined(separator: ",") + "\r\n"
        }
        return Array(out.utf8)
    }

    /// The outages as JSON: the UPS and its outages, oldest first.
    package static func outagesJSON(_ outages: [OutageRecord], row: UPSRow) -> [UInt8] {
        struct Outage: Encodable {
            var start: String, end: String?, durationSeconds: Double?, lowestBatteryPercent: Double?
            var energyOnBatteryWattHours: Double?, ongoing: Bool
            enum CodingKeys: String, CodingKey {
                case start, end, ongoing
                case durationSeconds = "duration_seconds", lowestBatteryPercent = "lowest_battery_percent"
                case energyOnBatteryWattHours = "energy_on_battery_wh"
            }
        }
        struct Document: Encodable {
            var server: String, deviceID: String, name: String, outages: [Outage]
            enum CodingKeys: String, CodingKey {
                case server, name, outages
                case deviceID = "device_id"
            }
        }
        func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
        return encoded(Document(
            server: DisplayText.sanitized(row.server), deviceID: DisplayText.sanitized(row.deviceID),
            name: DisplayText.sanitized(row.name),
            outages: outages.map { outage in
                Outage(start: isoTime(outage.start), end: outage.end.map { isoTime($0) },
                       durationSeconds: finite(outage.durationSeconds), lowestBatteryPercent: finite(outage.lowestBatteryPercent),
                       energyOnBatteryWattHours: finite(outage.energyOnBatteryWattHours), ongoing: outage.ongoing)
            }))
    }
}
