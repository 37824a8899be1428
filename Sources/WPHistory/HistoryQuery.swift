import WPTime
import WPLogging
import WPRuntime

/// A question to the history API (`/status/history.json` and `.csv`, docs/status-page.md): one
/// UPS, one tier, a range of slot starts. Made by ``parse(_:now:retention:)`` from a request's
/// parameters, which says what is wrong with one it cannot answer.
package struct HistoryQuery: Sendable, Equatable {
    /// The most points (slots) one answer holds.
    package static let maxPoints = 2_000
    /// The longest parameter value read.
    package static let maxParameterBytes = 256

    package var ups: HistoryUPS
    package var tier: HistoryTier
    /// The first slot start wanted (Unix seconds, inclusive, a multiple of the tier's length).
    package var from: Int64
    /// The end (Unix seconds, exclusive).
    package var to: Int64

    package init(ups: HistoryUPS, tier: HistoryTier, from: Int64, to: Int64) {
        self.ups = ups
        self.tier = tier
        self.from = from
        self.to = to
    }

    /// The query a request's parameters ask for, at `now` (Unix seconds) with the `history.*`
    /// retention in effect:
    ///
    /// - `device` (required) and `server` (default: none, a `winpower`-only configuration);
    /// - `range` — `24h`, `7d`, `30d`, `1y`, or any `<n>h`, `<n>d`, `<n>y` — ending now (the
    ///   default, `24h`), or `from` and optionally `to` (default now), each Unix seconds or
    ///   an RFC 3339 UTC time (`2026-11-01T00:00:00Z`, or a date `2026-11-01`);
    /// - `step` — `5m`, `1h` or `1d` — by default the finest tier that still keeps `from` and
    ///   answers the range in at most ``maxPoints`` points.
    ///
    /// - Returns: the query, or what is wrong: a parameter too long, a missing device, an
    ///   unknown range or step, a time that does not parse, a range that ends before it starts,
    ///   a start beyond the chosen tier's retention, or more points than ``maxPoints``.
    package static func parse(_ parameter: (String) -> String?, now: Int64,
                              retention: HistorySettings) -> Result<HistoryQuery, HistoryQueryError> {
        let values: [String: String]
        switch parameters(parameter, ["device", "server", "range", "from", "to", "step"]) {
        case .success(let read): values = read
        case .failure(let error): return .failure(error)
        }
        guard let device = values["device"], !device.isEmpty else {
            return .failure(.init("`device` is required: the UPS's device_id, as /status.json lists it"))
        }
        let ups = HistoryUPS(server: values["server"] ?? "", device: device)
        let from: Int64, to: Int64
        switch range(values, now: now, default: "24h") {
        case .success(let range): (from, to) = range
        case .failure(let error): return .failure(error)
        }
        func keeps(_ tier: HistoryTier) -> (days: Int, key: String) { tier.retention(in: retention) }
        func points(_ tier: HistoryTier) -> Int64 {
            let first = tier.slot(of: from)
            return (to - first + tier.seconds - 1) / tier.seconds
        }
        let tier: HistoryTier
        if let text = values["step"] {
            guard let chosen = step(text) else { return .failure(.init("`step` \(quoted(text)) is not 5m, 1h or 1d")) }
            tier = chosen
        } else {
            tier = HistoryTier.allCases.first { tier in
                from >= now - Int64(keeps(tier).days) * 86_400 && points(tier) <= Int64(maxPoints)
            } ?? .day
        }
        let (days, key) = keeps(tier)
        let horizon = now - Int64(days) * 86_400
        guard to > horizon else {
            return .failure(.init("\(tier.name) slots are kept for \(days) days (\(key)): the range ends before \(utc(horizon))"))
        }
        guard from >= horizon - tier.seconds else {
            let coarser = HistoryTier.allCases.filter { $0.rawValue > tier.rawValue && from >= now - Int64(keeps($0).days) * 86_400 }
            let hint = coarser.isEmpty ? "" : "; step=\(coarser[0].step) goes back further"
            return .failure(.init("\(tier.name) slots are kept for \(days) days (\(key)): `from` is before \(utc(horizon))\(hint)"))
        }
        let count = points(tier)
        guard count <= Int64(maxPoints) else {
            return .failure(.init("that is \(count) points of \(tier.step); at most \(maxPoints) per answer: choose a coarser step or a shorter range"))
        }
        return .success(HistoryQuery(ups: ups, tier: tier, from: tier.slot(of: from), to: to))
    }

    /// The parameters `names` of a request, each at most ``maxParameterBytes`` long.
    static func parameters(_ parameter: (String) -> String?, _ names: [String]) -> Result<[String: String], HistoryQueryError> {
        var values: [String: String] = [:]
        for name in names {
            guard let value = parameter(name) else { continue }
            guard value.utf8.count <= maxParameterBytes else {
                return .failure(.init("parameter `\(name)` is \(value.utf8.count) bytes long; at most \(maxParameterBytes)"))
            }
            values[name] = value
        }
        return .success(values)
    }

    /// The range `range`, or `from` and `to`, ask for (Unix seconds, `to` exclusive); `range`
    /// `fallback` ending `now` when neither is given.
    static func range(_ values: [String: String], now: Int64, default fallback: String) -> Result<(Int64, Int64), HistoryQueryError> {
        if let start = values["from"] {
            guard values["range"] == nil else { return .failure(.init("give `range` or `from` (and `to`), not both")) }
            guard let from = time(start) else { return .failure(.init("`from` \(quoted(start)) is not Unix seconds or an RFC 3339 UTC time")) }
            var to = now + 1  // now included
            if let end = values["to"] {
                guard let parsed = time(end) else { return .failure(.init("`to` \(quoted(end)) is not Unix seconds or an RFC 3339 UTC time")) }
                to = parsed
            }
            guard from < to else { return .failure(.init("`from` (\(utc(from))) is not before `to` (\(utc(to)))")) }
            return .success((from, to))
        }
        guard values["to"] == nil else { return .failure(.init("`to` needs `from`")) }
        let text = values["range"] ?? fallback
        guard let span = span(text) else {
            return .failure(.init("`range` \(quoted(text)) is not 24h, 7d, 30d, 1y or another <n>h, <n>d or <n>y"))
        }
        return .success((now - span, now + 1))  // now included
    }

    /// `text` as seconds: `<n>h`, `<n>d` or `<n>y` (365 days), n from 1 to 100,000.
    static func span(_ text: String) -> Int64? {
        guard let unit = text.last, let count = Int64(text.dropLast()), (1...100_000).contains(count) else { return nil }
        switch unit {
        case "h": return count * 3_600
        case "d": return count * 86_400
        case "y": return count * 365 * 86_400
        default: return nil
        }
    }

    static func step(_ text: String) -> HistoryTier? { HistoryTier.allCases.first { $0.step == text } }

    /// Unix seconds, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (UTC, fractions ignored).
    static func time(_ text: String) -> Int64? {
        if let seconds = Int64(text), abs(seconds) < 1 << 40 { return seconds }
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ (0x30...0x39).contains(bytes[$0]) }) else { return nil }
            return range.reduce(Int64(0)) { $0 * 10 + Int64(bytes[$1] - 0x30) }
        }
        guard bytes.count >= 10, bytes[4] == 0x2D, bytes[7] == 0x2D, let year = number(0..<4), let month = number(5..<7),
              let day = number(8..<10), (1...12).contains(month), (1...31).contains(day) else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        guard CivilDate.date(days: days) == (year, month, day) else { return nil }  // 2026-02-30
        var seconds = days * 86_400
        guard bytes.count > 10 else { return seconds }
        guard bytes.count >= 20, bytes[10] == 0x54 || bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A, bytes.last == 0x5A,
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19), hour < 24, minute < 60, second < 61
        else { return nil }
        if bytes.count > 20 {
            guard bytes[19] == 0x2E, bytes.count > 21, number(20..<(bytes.count - 1)) != nil else { return nil }
        }
        seconds += hour * 3_600 + minute * 60 + second
        return seconds
    }

    /// `seconds` as an RFC 3339 UTC time to the second (the log's timestamp without its milliseconds).
    package static func utc(_ seconds: Int64) -> String {
        LogTimestamp(secondsSince1970: Double(seconds)).text(.rfc3339Seconds)
    }

    /// `text` quoted for a message, cut to 40 characters.
    package static func quoted(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(40).map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
        return "\"" + shown + (text.unicodeScalars.count > 40 ? "…" : "") + "\""
    }
}

/// Why the history API cannot answer: the HTTP status and what to say.
package struct HistoryQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    package var status: Int
    package var message: String

    package init(_ message: String, status: Int = 400) {
        self.status = status
        self.message = message
    }

    package var description: String { message }
}

extension HistoryTier {
    /// Its `step` parameter: `5m`, `1h`, `1d`.
    package var step: String {
        switch self {
        case .fiveMinutes: "5m"
        case .hour: "1h"
        case .day: "1d"
        }
    }

    /// How many days `history` keeps its slots, and the key that says so.
    package func retention(in history: HistorySettings) -> (days: Int, key: String) {
        switch self {
        case .fiveMinutes: (history.retentionDays, "history.retention_days")
        case .hour: (history.hourlyRetentionDays, "history.hourly_retention_days")
        case .day: (history.dailyRetentionDays, "history.daily_retention_days")
        }
    }

    /// Its name in messages.
    package var name: String {
        switch self {
        case .fiveMinutes: "5-minute"
        case .hour: "hourly"
        case .day: "daily"
        }
    }
}

/// A question to the events API (`/status/events.json` and `.csv`): the journal's events in a
/// range, of one UPS (with its server's) or of all, of some kinds, newest first.
package struct HistoryEventQuery: Sendable, Equatable {
    /// The most events one answer holds.
    package static let maxEvents = 1_000

    /// The UPS (its server's events included); `nil`: every UPS, server and the exporter.
    package var ups: HistoryUPS?
    package var kinds: [HistoryEvent.Kind]
    package var from: Int64
    package var to: Int64
    package var limit: Int

    package init(ups: HistoryUPS?, kinds: [HistoryEvent.Kind] = [], from: Int64, to: Int64, limit: Int = 200) {
        self.ups = ups
        self.kinds = kinds
        self.from = from
        self.to = to
        self.limit = limit
    }

    /// The query a request's parameters ask for at `now`: `device` (and `server`) or none for
    /// the whole fleet, `kind` (kinds separated by commas, ``HistoryEvent/Kind``), `range`
    /// (default `30d`) or `from`/`to` as for ``HistoryQuery``, `limit` (1 to ``maxEvents``,
    /// default 200).
    package static func parse(_ parameter: (String) -> String?, now: Int64) -> Result<HistoryEventQuery, HistoryQueryError> {
        let values: [String: String]
        switch HistoryQuery.parameters(parameter, ["device", "server", "kind", "range", "from", "to", "limit"]) {
        case .success(let read): values = read
        case .failure(let error): return .failure(error)
        }
        var ups: HistoryUPS?
        if let device = values["device"], !device.isEmpty {
            ups = HistoryUPS(server: values["server"] ?? "", device: device)
        } else if values["server"] != nil {
            return .failure(.init("`server` needs `device`"))
        }
        var kinds: [HistoryEvent.Kind] = []
        for name in (values["kind"] ?? "").split(separator: ",", omittingEmptySubsequences: true) {
            guard let kind = HistoryEvent.Kind(rawValue: String(name)) else {
                return .failure(.init("`kind` \(HistoryQuery.quoted(String(name))) is not one of "
                                      + HistoryEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")))
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        var limit = 200
        if let text = values["limit"] {
            guard let number = Int(text), (1...maxEvents).contains(number) else {
                return .failure(.init("`limit` \(HistoryQuery.quoted(text)) is not a number from 1 to \(maxEvents)"))
            }
            limit = number
        }
        switch HistoryQuery.range(values, now: now, default: "30d") {
        case .success(let (from, to)): return .success(HistoryEventQuery(ups: ups, kinds: kinds, from: from, to: to, limit: limit))
        case .failure(let error): return .failure(error)
        }
    }
}
