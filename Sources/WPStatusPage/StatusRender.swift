import WPTime
import WPText
import FoundationEssentials
import WPFrontEnd
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
        localTime(date, zone)?.description
    }

    /// The local time of `date` in `zone` (``localTimestamp(_:_:)``'s value), to show with
    /// `LogTimestamp.text(_:)`; `nil` for a date that is not finite or is beyond any calendar.
    static func localTime(_ date: Date, _ zone: TimeZoneRules) -> LogTimestamp? {
        unixSeconds(date).map { LogTimestamp.local($0, zone) }
    }

    /// `2026-11-26 15:30:00 UTC+08:00` (`… UTC` in UTC): the local time in `zone`, with its offset.
    static func time(_ date: Date?, _ zone: TimeZoneRules) -> String {
        guard let date, let utc = unixSeconds(date) else { return "–" }
        return LogTimestamp.localText(utc, zone)
    }

    /// `date`'s whole Unix seconds; `nil` for a date that is not finite or is beyond any
    /// calendar (a broken wall clock).
    private static func unixSeconds(_ date: Date) -> Int64? {
        guard date.timeIntervalSince1970.isFinite, abs(date.timeIntervalSince1970) < 1e15 else { return nil }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// `2026-11-26T07:30:00Z`, or empty.
    static func isoTime(_ date: Date?) -> String {
        guard let date else { return "" }
        return LogTimestamp(secondsSince1970: date.timeIntervalSince1970).text(.rfc3339Seconds)
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

    /// The readings of a UPS's page after its name, in the order of ``headers(_:)``.
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

    static func encoded(_ value: some Encodable) -> [UInt8] {
        JSONBody.bytes(value) + [0x0A]
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
