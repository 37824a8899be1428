import WPText
import WPTime
package import FoundationEssentials
import WPClient
import WPEnergy
package import WPHistory
import WPLogging
import WPRuntime

extension StatusRender {
    /// What one UPS's page shows.
    package struct UPSDetails: Sendable {
        package var row: UPSRow
        package var model: StatusModel
        /// The last 24 hours the page keeps in memory: the charts when the history is off.
        package var history: [StatusHistory.Point]
        package var outages: [OutageRecord]
        package var exposition: [String]
        package var now: Date
        /// What the history database answered for the page's range, when the history is on.
        package var trend: UPSTrend?
    }

    /// A UPS's history over the range its page shows, from the history database.
    package struct UPSTrend: Sendable {
        /// The range as asked (`24h`, `7d`, `30d`, `1y`, or another `<n>h|d|y`).
        package var range: String
        /// The event list's kinds as asked (`kind`, comma-separated), empty for every kind.
        package var kind: String
        /// The window (Unix seconds, `to` exclusive) and its slots' length.
        package var from: Int64
        package var to: Int64
        package var step: Int64
        package var slots: [HistorySlot] = []
        /// Every event of the window (newest first, at most ``StatusPage/marksRead``): the charts' marks.
        package var marks: [HistoryEvent] = []
        /// The range's `on_battery` and `mains_back` (newest first, at most ``StatusPage/marksRead``):
        /// the outages shaded; whether that many were read (older ones left out).
        package var power: [HistoryEvent] = []
        package var powerLimited = false
        /// The events the list shows (the kind filter applied), newest first.
        package var listed: [HistoryEvent] = []
        /// Whether the list stopped at its limit (older events left out).
        package var listLimited = false
        /// What kept the database from answering, shown in place of what it would have said.
        package var problem: String?

        package init(range: String, kind: String, from: Int64, to: Int64, step: Int64) {
            (self.range, self.kind, self.from, self.to, self.step) = (range, kind, from, to, step)
        }
    }

    /// The ranges the page switches between.
    static let pageRanges = ["24h", "7d", "30d", "1y"]

    /// The event list's filters: a name (``StatusText/kindGroups``) and its kinds.
    static let kindGroups: [(name: String, kinds: [HistoryEvent.Kind])] = [
        ("power", [.onBattery, .mainsBack, .lowBattery, .lowBatteryCleared, .bypass, .bypassEnded]),
        ("alarms", [.alarmRaised, .alarmCleared, .fault, .faultCleared]),
        ("tests", [.selfTestStarted, .selfTestFinished, .selfTestOverdue, .selfTestOverdueCleared, .batteryHealthLow,
                   .batteryHealthRecovered]),
        ("connection", [.disconnected, .reconnected, .stale, .fresh, .serverUnreachable, .loginRefused, .serverBack]),
    ]

    /// Why the UPS needs attention, in words: its state's reason, its alarms' texts, a running self-test.
    static func reasons(_ row: UPSRow, text: StatusText, zone: TimeZoneRules) -> [String] {
        var reasons: [String] = []
        if let reason = text.reasons[row.state] {
            if row.state == .battery, let outage = row.lastOutage, outage.ongoing {
                reasons.append(reason + " (" + text.outageStart + " " + time(outage.start, zone) + ")")
            } else {
                reasons.append(reason)
            }
        }
        for alarm in row.alarms {
            var words = text.alarm
            if let code = alarm.code { words += " " + code }
            let said = [alarm.name, alarm.message].compactMap { $0?.trimmingWhitespace() }.filter { !$0.isEmpty }
            if !said.isEmpty { words += ": " + said.joined(separator: " — ") }
            if let id = alarm.id, alarm.code == nil, said.isEmpty { words += " " + id }
            reasons.append(words)
        }
        if row.selfTestRunning && row.state != .stale {
            reasons.append(text.selfTestRunning + (row.testStatus.map { " (" + text.testStatus + " \($0))" } ?? ""))
        }
        if row.batteryDue, let days = row.batteryDaysLeft, let day = row.battery?.replaceBy {
            reasons.append(days < 0 ? text.batteryOverdue(day) : text.batteryDue(day))
        }
        if let verdict = row.batteryHealth, verdict.isLow, let health = verdict.health {
            reasons.append(text.health.low(percent(health), percent(verdict.threshold)))
        }
        if row.selfTestOverdue == true, let since = row.lastSelfTest ?? row.watchedSince {
            reasons.append(text.health.overdue(time(since, zone)))
        }
        return reasons
    }

    /// A link to this UPS's page with `range` and `kind` (and the language), escaped for an attribute.
    static func upsLink(_ row: UPSRow, range: String?, kind: String?, language: StatusLanguage, fragment: String = "") -> String {
        var query = StatusRoutes.ups + "?" + row.query
        if let range { query += "&range=" + PercentEncoding.encoded(range, strict: true) }
        if let kind, !kind.isEmpty { query += "&kind=" + PercentEncoding.encoded(kind, strict: true) }
        return escaped(query + "&lang=" + language.rawValue + fragment)
    }

    /// `/status/ups?…`: one UPS.
    package static func upsPage(_ details: UPSDetails, language: StatusLanguage) -> [UInt8] {
        let text = language.text
        let row = details.row
        let zone = details.model.timeZone
        var out = ""
        var selfPath = StatusRoutes.ups + "?" + row.query
        if let trend = details.trend {
            selfPath += "&range=" + PercentEncoding.encoded(trend.range, strict: true)
            if !trend.kind.isEmpty { selfPath += "&kind=" + PercentEncoding.encoded(trend.kind, strict: true) }
        }
        // A week or more changes little between collections: its page reloads every 5 minutes.
        let longRange = details.trend.map { $0.to - $0.from > 2 * 86_400 } ?? false
        head(&out, title: row.name, language: language, refresh: longRange ? max(details.model.refreshSeconds, 300) : details.model.refreshSeconds,
             self: selfPath, json: nil, script: details.trend != nil)
        out += "<main>\n<p><a href=\"\(StatusRoutes.page)?lang=\(language.rawValue)\">\(escaped(text.back))</a></p>\n"
        out += "<p class=\"state-\(row.state.rawValue)\(row.state.needsAttention ? " attention" : "")\">"
        out += "<span class=\"badge\">\(escaped(text.states[row.state] ?? row.state.rawValue))</span></p>\n"
        let reasons = reasons(row, text: text, zone: zone)
        if !reasons.isEmpty {
            out += "<section class=\"reasons\" id=\"reasons\"><h2>\(escaped(row.state.needsAttention ? text.attention : text.currently))</h2><ul>\n"
            for reason in reasons { out += "<li>\(escaped(reason))</li>\n" }
            out += "</ul></section>\n"
        }
        out += "<div class=\"scroll\"><table class=\"readings\"><tbody>\n"
        let values = cells(row, model: details.model, text: text)
        let names = headers(text)
        out += "<tr><th>ID</th><td>\(escaped(row.deviceID))</td></tr>\n"
        if let model = row.model { out += "<tr><th>\(escaped(text.model))</th><td>\(escaped(model))</td></tr>\n" }
        if let battery = row.battery, let installed = battery.installed, let replaceBy = battery.replaceBy {
            let age = row.batteryAgeYears.map { " (" + text.batteryAge($0) + ")" } ?? ""
            out += "<tr><th>\(escaped(text.batteryInstalled))</th><td>\(escaped(installed + age))</td></tr>\n"
            out += "<tr><th>\(escaped(text.batteryReplaceBy))</th><td"
            out += row.batteryDue ? " class=\"due\">" : ">"
            out += "\(escaped(replaceBy)) (\(escaped(battery.life)))</td></tr>\n"
        }
        healthRows(&out, row: row, text: text.health, zone: zone)
        for (name, value) in zip(names.dropFirst(), values) { out += "<tr><th>\(escaped(name))</th><td>\(escaped(value))</td></tr>\n" }
        if let currency = details.model.currency {
            for cost in row.costs {
                out += "<tr><th>\(escaped(text.cost)) (\(escaped(cost.period)))</th>"
                out += "<td>\(String(fixed: cost.amount, fractionDigits: 2)) \(escaped(currency))</td></tr>\n"
            }
        }
        out += "</tbody></table></div>\n"
        if let trend = details.trend {
            trendSection(&out, trend, details: details, language: language)
        } else {
            memorySection(&out, details: details, text: text)
        }
        if let verdict = row.batteryHealth { measurementsSection(&out, verdict, text: text.health, zone: zone, now: details.now) }
        let query = escaped(row.query)
        out += "<h2>\(escaped(text.outages))</h2>\n"
        out += "<p class=\"downloads\">\(escaped(text.download)): <a href=\"\(StatusRoutes.outagesCSV)?\(query)\">CSV</a> "
        out += "<a href=\"\(StatusRoutes.outagesJSON)?\(query)\">JSON</a></p>\n"
        if details.outages.isEmpty {
            out += "<p>\(escaped(text.noOutages))</p>\n"
        } else {
            tableStart(&out, id: "outages", [text.outageStart, text.outageEnd, text.duration, text.lowestBattery, text.energyOnBattery])
            for outage in details.outages.reversed() {
                let end = outage.ongoing ? text.inProgress : outage.end.map { time($0, zone) } ?? text.unknownEnd
                out += "<tr><td>\(time(outage.start, zone))</td><td>\(escaped(end))</td><td>\(duration(outage.durationSeconds))</td>"
                out += "<td>\(number(outage.lowestBatteryPercent, digits: 0))</td><td>\(number(outage.energyOnBatteryWattHours, digits: 1))</td></tr>\n"
            }
            out += "</tbody></table></div>\n"
        }
        out += "<details class=\"exposition\"><summary>\(escaped(text.readings)) (\(details.exposition.count))</summary>\n<pre class=\"exposition\">"
        for line in details.exposition { out += escaped(line) + "\n" }
        out += "</pre></details>\n</main>\n</body>\n</html>\n"
        return Array(out.utf8)
    }

    /// A ratio as a whole percent (`92 %`).
    static func percent(_ ratio: Double) -> String { number(ratio * 100, digits: 0) + " %" }

    /// The battery health and last self-test rows of the readings table.
    static func healthRows(_ out: inout String, row: UPSRow, text: BatteryHealthText, zone: TimeZoneRules) {
        if let verdict = row.batteryHealth {
            let value = verdict.health.map { text.percent(percent($0), verdict.measurements) }
                ?? text.notEnough(verdict.measurements, verdict.needed)
            out += "<tr id=\"battery-health\"><th>\(escaped(text.health))</th><td\(verdict.isLow ? " class=\"due\"" : "")>"
            out += "\(escaped(value))</td></tr>\n"
        }
        if row.lastSelfTest != nil || row.watchedSince != nil {
            var value = row.lastSelfTest.map { time($0, zone) } ?? text.noSelfTestSince(time(row.watchedSince, zone))
            if row.lastSelfTest != nil, let code = row.lastSelfTestStatus {
                let result = SelfTestResult(testStatus: code).flatMap { text.results[$0] }
                value += ": " + (result.map { "\($0) (testStatus \(code))" } ?? "testStatus \(code)")
            }
            out += "<tr id=\"last-self-test\"><th>\(escaped(text.lastSelfTest))</th><td\(row.selfTestOverdue == true ? " class=\"due\"" : "")>"
            out += "\(escaped(value))</td></tr>\n"
        }
    }

    /// The battery's measurements: a chart of their health over time and a table of each.
    static func measurementsSection(_ out: inout String, _ verdict: BatteryHealthVerdict, text: BatteryHealthText,
                                    zone: TimeZoneRules, now: Date) {
        out += "<section id=\"battery-measurements\"><h2>\(escaped(text.measurements))</h2>\n"
        out += "<p class=\"note\">\(escaped(text.about))</p>\n"
        let rated = verdict.points.compactMap { point in
            point.ratio.map { StatusChart.Point(time: Int64(point.discharge.end.timeIntervalSince1970), mean: $0 * 100, low: $0 * 100, high: $0 * 100) }
        }
        if rated.count > 1, let first = rated.first?.time {
            let end = max(Int64(now.timeIntervalSince1970), (rated.last?.time ?? first) + 1)
            let span = max(end - first, 3_600)
            // One slot over the whole span: the points are joined, never broken into gaps.
            let window = StatusChart.Window(from: first - span / 20, to: end, step: span * 2, zone: zone)
            out += "<div class=\"charts\">\n"
            out += StatusChart.svg(title: text.ratio + " (%)", points: rated, window: window, fixedRange: nil)
            out += "</div>\n"
        }
        tableStart(&out, id: "measurements", [text.end, text.kind, text.chargeUsed, text.meanLoad, text.perTenPercent,
                                              text.predictedPerTenPercent, text.ratio])
        for point in verdict.points.reversed() {
            let discharge = point.discharge
            let ratio = point.note.map { note in
                (point.ratio.map { percent($0) + ", " } ?? "") + (text.notes[note] ?? note.rawValue)
            } ?? point.ratio.map(percent) ?? ""
            out += "<tr><td>\(time(discharge.end, zone))</td><td>\(escaped(text.kinds[discharge.kind] ?? discharge.kind.rawValue))</td>"
            out += "<td>\(number(discharge.chargeUsed, digits: 0))</td><td>\(number(discharge.joules > 0 ? discharge.meanWatts : nil, digits: 0))</td>"
            out += "<td>\(duration(discharge.secondsPerPercent * 10))</td>"
            out += "<td>\(duration(discharge.predictedSecondsPerPercent.map { $0 * 10 }))</td>"
            out += "<td>\(escaped(ratio))</td></tr>\n"
        }
        out += "</tbody></table></div>\n</section>\n"
    }

    /// The charts of the last 24 hours the page keeps in memory (the history is off).
    static func memorySection(_ out: inout String, details: UPSDetails, text: StatusText) {
        let zone = details.model.timeZone
        out += "<section id=\"history\"><h2>\(escaped(text.fromMemory))</h2>\n"
        out += "<p class=\"note\">\(escaped(text.timesIn)) \(escaped(zone.label(at: Int64(details.now.timeIntervalSince1970))))</p>\n"
        let slot = Int64(StatusHistory.slotSeconds)
        let end = Int64(details.now.timeIntervalSince1970.rounded(.down)) + 1
        let window = StatusChart.Window(from: end - 86_400, to: end, step: slot, zone: zone)
        let spans = details.outages.map { outage in
            StatusChart.Span(from: Int64(outage.start.timeIntervalSince1970),
                             to: outage.end.map { Int64($0.timeIntervalSince1970) } ?? end, title: outageText(outage, text: text, zone: zone))
        }
        func points(_ value: KeyPath<StatusHistory.Point, Float32>) -> [StatusChart.Point] {
            details.history.map { point in
                let reading = Double(point[keyPath: value])
                return StatusChart.Point(time: Int64(point.slot) * slot, mean: reading, low: reading, high: reading)
            }
        }
        out += "<div class=\"charts\">\n"
        out += StatusChart.svg(title: text.loadPercent, points: points(\.load), window: window, spans: spans, fixedRange: 0...100)
        out += StatusChart.svg(title: text.battery, points: points(\.battery), window: window, spans: spans, fixedRange: 0...100)
        out += StatusChart.svg(title: text.inputVoltage, points: points(\.inputVoltage), window: window, spans: spans, fixedRange: nil)
        out += "</div>\n</section>\n"
    }

    /// The range switch, the charts from the database, the downloads of the range and the event list.
    static func trendSection(_ out: inout String, _ trend: UPSTrend, details: UPSDetails, language: StatusLanguage) {
        let text = language.text
        let row = details.row
        let zone = details.model.timeZone
        out += "<section id=\"history\"><h2>\(escaped(text.chartsTitle))</h2>\n"
        out += "<nav class=\"ranges\" aria-label=\"\(escaped(text.rangeLabel))\">\(escaped(text.rangeLabel)):"
        for range in pageRanges {
            let current = range == trend.range ? " aria-current=\"page\"" : ""
            out += " <a href=\"\(upsLink(row, range: range, kind: trend.kind, language: language))\" data-inplace=\"history\"\(current)>"
            out += "\(escaped(text.ranges[range] ?? range))</a>"
        }
        out += "</nav>\n"
        if let problem = trend.problem {
            out += "<p class=\"problem\">\(escaped(text.historyProblem)): \(escaped(problem))</p>\n"
        }
        out += "<p class=\"note\">\(escaped(text.timesIn)) \(escaped(zone.label(at: trend.to))). \(escaped(text.legend))</p>\n"
        let window = StatusChart.Window(from: trend.from, to: trend.to, step: trend.step, zone: zone)
        // Outages: from each on_battery to the mains_back after it (or the window's end). One
        // that began before the window starts with it (with the oldest event read, when the
        // list stopped at its limit); one going on through the whole window spans it.
        var spans: [StatusChart.Span] = []
        var openUntil: Int64?
        for event in trend.power {  // newest first
            switch event.kind {
            case .mainsBack: openUntil = event.time
            case .onBattery:
                let end = openUntil ?? trend.to
                spans.append(StatusChart.Span(from: event.time, to: end, title: (text.kinds[.onBattery] ?? "") + " "
                    + time(Date(timeIntervalSince1970: Double(event.time)), zone) + " (" + duration(Double(end - event.time)) + ")"))
                openUntil = nil
            default: break
            }
        }
        let earliest = trend.powerLimited ? trend.power.last?.time ?? trend.from : trend.from
        if let openUntil { spans.append(StatusChart.Span(from: earliest, to: openUntil, title: text.kinds[.onBattery] ?? "")) }
        if trend.power.isEmpty, let outage = row.lastOutage, outage.ongoing, outage.start.timeIntervalSince1970 < Double(trend.from) {
            spans.append(StatusChart.Span(from: trend.from, to: trend.to, title: outageText(outage, text: text, zone: zone)))
        }
        let marks = trend.marks.map { event in
            StatusChart.Mark(time: event.time, severity: StatusChart.severity(event.kind), title: eventTitle(event, text: text, zone: zone))
        }
        // The slots still open (not in the database yet): what the page keeps in memory, for
        // the metrics it keeps, on a chart of 5-minute slots.
        let written = trend.slots.last?.start ?? .min
        let recent = trend.step == Int64(StatusHistory.slotSeconds)
            ? details.history.filter { Int64($0.slot) * trend.step > written } : []
        func points(_ metric: HistoryMetric, scale: Double = 1) -> [StatusChart.Point] {
            var found = trend.slots.compactMap { slot -> StatusChart.Point? in
                guard let mean = slot.mean(metric), let range = slot.range(metric) else { return nil }
                return StatusChart.Point(time: slot.start, mean: mean / scale, low: range.lowerBound / scale, high: range.upperBound / scale)
            }
            let kept: KeyPath<StatusHistory.Point, Float32>? = switch metric {
            case .loadPercent: \.load
            case .batteryCharge: \.battery
            case .inputVoltage: \.inputVoltage
            default: nil
            }
            if let kept {
                for point in recent {
                    let reading = Double(point[keyPath: kept])
                    found.append(StatusChart.Point(time: Int64(point.slot) * trend.step, mean: reading, low: reading, high: reading))
                }
            }
            return found
        }
        out += "<div class=\"charts\">\n"
        var charts: [(String, [StatusChart.Point], ClosedRange<Double>?)] = [
            (text.loadPercent, points(.loadPercent), 0...100), (text.load, points(.loadWatts), nil),
            (text.battery, points(.batteryCharge), 0...100), (text.runtimeMinutes, points(.batteryRuntime, scale: 60), nil),
            (text.inputVoltage, points(.inputVoltage), nil), (text.outputVoltage, points(.outputVoltage), nil),
        ]
        // What WinPower does not send for this UPS is not charted.
        for (title, metric) in [(text.frequency, HistoryMetric.inputFrequency), (text.temperature, .temperature)] {
            let found = points(metric)
            if !found.isEmpty { charts.append((title, found, nil)) }
        }
        for (title, found, fixed) in charts {
            out += StatusChart.svg(title: title, points: found, window: window, spans: spans, marks: marks, fixedRange: fixed)
        }
        out += "</div>\n"
        let range = PercentEncoding.encoded(trend.range, strict: true)
        let query = escaped(row.query) + "&amp;range=" + escaped(range)
        let kindQuery = trend.kind.isEmpty ? "" : "&amp;kind=" + escaped(PercentEncoding.encoded(trend.kind, strict: true))
        out += "<p class=\"downloads\">\(escaped(text.download)) (\(escaped(text.ranges[trend.range] ?? trend.range))): "
        out += "\(escaped(text.history)) <a href=\"\(StatusRoutes.historyCSV)?\(query)\">CSV</a> "
        out += "<a href=\"\(StatusRoutes.historyJSON)?\(query)\">JSON</a>; "
        out += "\(escaped(text.events)) <a href=\"\(StatusRoutes.eventsCSV)?\(query)\(kindQuery)\">CSV</a> "
        out += "<a href=\"\(StatusRoutes.eventsJSON)?\(query)\(kindQuery)\">JSON</a></p>\n"
        out += "<h2 id=\"events\">\(escaped(text.eventsTitle))</h2>\n<nav class=\"kinds\">"
        let chosen = Set(trend.kind.split(separator: ",").map(String.init))
        var filters: [(String, String)] = [(text.allKinds, "")]
        for group in kindGroups { filters.append((text.kindGroups[group.name] ?? group.name, group.kinds.map(\.rawValue).joined(separator: ","))) }
        for (name, kinds) in filters {
            let current = Set(kinds.split(separator: ",").map(String.init)) == chosen ? " aria-current=\"page\"" : ""
            out += "<a href=\"\(upsLink(row, range: trend.range, kind: kinds, language: language, fragment: "#events"))\" "
            out += "data-inplace=\"history\"\(current)>\(escaped(name))</a> "
        }
        out += "</nav>\n"
        if trend.listed.isEmpty {
            out += "<p>\(escaped(text.noEvents))</p>\n"
        } else {
            tableStart(&out, id: "event-list", [text.eventTime, text.eventKind, text.eventCode, text.eventDetail])
            for event in trend.listed {
                out += "<tr class=\"event-\(StatusChart.severity(event.kind))\"><td>\(time(Date(timeIntervalSince1970: Double(event.time)), zone))</td>"
                out += "<td>\(escaped(text.kinds[event.kind] ?? event.kind.rawValue))</td><td>\(escaped(event.code ?? ""))</td>"
                out += "<td>\(escaped(event.detail))</td></tr>\n"
            }
            out += "</tbody></table></div>\n"
            if trend.listLimited { out += "<p class=\"note\">\(trend.listed.count) \(escaped(text.events)), \(escaped(text.eventsShown))</p>\n" }
        }
        out += "</section>\n"
    }

    /// A scrolling table `id` up to its body's first row: its head of `headers`.
    static func tableStart(_ out: inout String, id: String, _ headers: [String]) {
        out += "<div class=\"scroll\"><table id=\"\(id)\"><thead><tr>"
        for header in headers { out += "<th>\(escaped(header))</th>" }
        out += "</tr></thead><tbody>\n"
    }

    /// An event's tooltip: its local time, its kind in words, its code and detail.
    static func eventTitle(_ event: HistoryEvent, text: StatusText, zone: TimeZoneRules) -> String {
        var title = time(Date(timeIntervalSince1970: Double(event.time)), zone) + " " + (text.kinds[event.kind] ?? event.kind.rawValue)
        if let code = event.code { title += " " + code }
        if !event.detail.isEmpty { title += ": " + event.detail }
        return title
    }
}
