import WPText
package import WPHistory
import WPLogging
import WPRuntime

/// Where the history API (`/status/history.json`, `/status/history.csv`) reads: the database
/// and the `history.*` settings in effect (read per request: a reload applies at once).
package struct StatusHistorySource: Sendable {
    package var reader: HistoryReader
    package var settings: @Sendable () -> HistorySettings

    package init(reader: HistoryReader, settings: @escaping @Sendable () -> HistorySettings) {
        self.reader = reader
        self.settings = settings
    }
}

extension StatusRender {
    /// The columns of a history answer after `start` and `samples`: per metric its mean, least
    /// and greatest (the names of the database's `slot_values` view), then `mode` and `energy_kwh`.
    static let historyColumns: [String] =
        HistoryMetric.allCases.flatMap { [$0.column, $0.column + "_min", $0.column + "_max"] } + ["mode", "energy_kwh"]

    /// A slot's values in ``historyColumns``' order, `nil` where it has none.
    static func historyValues(_ slot: HistorySlot) -> [(value: Double, digits: Int)?] {
        var values: [(value: Double, digits: Int)?] = []
        for metric in HistoryMetric.allCases {
            let digits = metric.scale >= 100 ? 2 : metric.scale >= 10 ? 1 : 0
            if let mean = slot.mean(metric), let range = slot.range(metric) {
                values += [(mean, digits), (range.lowerBound, digits), (range.upperBound, digits)]
            } else {
                values += [nil, nil, nil]
            }
        }
        values.append(slot.mode.map { (Double($0), 0) })
        values.append(slot.energyKWh.map { ($0, 3) })
        return values
    }

    /// A history answer as CSV: `start` (RFC 3339 UTC), `samples`, then ``historyColumns``.
    package static func historyCSV(_ slots: [HistorySlot]) -> [UInt8] {
        var out = (["start", "samples"] + historyColumns).joined(separator: ",") + "\r\n"
        for slot in slots {
            let values = historyValues(slot).map { $0.map { String(fixed: $0.value, fractionDigits: $0.digits) } ?? "" }
            out += ([HistoryQuery.utc(slot.start), String(slot.samples)] + values).joined(separator: ",") + "\r\n"
        }
        return Array(out.utf8)
    }

    /// A history answer as JSON: the UPS, the step and range, and a point per slot with the
    /// CSV's columns (a value a slot lacks left out).
    package static func historyJSON(_ slots: [HistorySlot], query: HistoryQuery) -> [UInt8] {
        struct Point: Encodable {
            var start: String
            var samples: Int64
            var values: [(String, Double)]

            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(start, forKey: Key(stringValue: "start"))
                try container.encode(samples, forKey: Key(stringValue: "samples"))
                for (name, value) in values { try container.encode(value, forKey: Key(stringValue: name)) }
            }
        }
        struct Document: Encodable {
            var server: String, deviceID: String, step: String, stepSeconds: Int64, from: String, to: String, points: [Point]
            enum CodingKeys: String, CodingKey {
                case server, step, from, to, points
                case deviceID = "device_id", stepSeconds = "step_seconds"
            }
        }
        let points = slots.map { slot in
            Point(start: HistoryQuery.utc(slot.start), samples: slot.samples,
                  values: zip(historyColumns, historyValues(slot)).compactMap { name, value in value.map { (name, $0.value) } })
        }
        return encoded(Document(server: DisplayText.sanitized(query.ups.server), deviceID: DisplayText.sanitized(query.ups.device),
                                step: query.tier.step, stepSeconds: query.tier.seconds, from: HistoryQuery.utc(query.from),
                                to: HistoryQuery.utc(query.to), points: points))
    }
}

extension StatusRender {
    /// `text` as one CSV field: displayable (``DisplayText``), quoted when it holds a comma, a
    /// quote or a line break, and with a `'` before a leading `=`, `+`, `-`, `@` so a
    /// spreadsheet does not take a UPS's alarm text for a formula.
    static func csvField(_ text: String) -> String {
        var text = DisplayText.sanitized(text)
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// Journal events as CSV: `time` (RFC 3339 UTC), `server`, `device_id`, `kind`, `code`, `detail`; newest first.
    package static func eventsCSV(_ events: [HistoryEvent]) -> [UInt8] {
        var out = "time,server,device_id,kind,code,detail\r\n"
        for event in events {
            out += [HistoryQuery.utc(event.time), csvField(event.server), csvField(event.device ?? ""), event.kind.rawValue,
                    csvField(event.code ?? ""), csvField(event.detail)].joined(separator: ",") + "\r\n"
        }
        return Array(out.utf8)
    }

    /// Journal events as JSON: the range asked for and the events, newest first.
    package static func eventsJSON(_ events: [HistoryEvent], query: HistoryEventQuery) -> [UInt8] {
        struct Event: Encodable {
            var time: String, server: String, deviceID: String?, kind: String, code: String?, detail: String
            enum CodingKeys: String, CodingKey {
                case time, server, kind, code, detail
                case deviceID = "device_id"
            }
        }
        struct Document: Encodable {
            var from: String, to: String, events: [Event]
        }
        return encoded(Document(from: HistoryQuery.utc(query.from), to: HistoryQuery.utc(query.to), events: events.map { event in
            Event(time: HistoryQuery.utc(event.time), server: DisplayText.sanitized(event.server),
                  deviceID: event.device.map(DisplayText.sanitized), kind: event.kind.rawValue,
                  code: event.code.map(DisplayText.sanitized), detail: DisplayText.sanitized(event.detail))
        }))
    }
}
