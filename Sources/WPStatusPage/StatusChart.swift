import WPTime
import FoundationEssentials
import WPHistory
import WPLogging
import WPRuntime

/// A line chart over a time window as inline SVG: the average as a line, the least and greatest
/// of each slot as a band around it, outages shaded and events marked on the time axis, the axis
/// labelled in the pages' local time. Presentation by classes of the stylesheet (the
/// Content-Security-Policy allows no `style` attribute); a gap where slots are missing.
enum StatusChart {
    static let width = 640.0
    static let height = 220.0
    static let left = 46.0
    static let right = 10.0
    static let top = 10.0
    static let bottom = 24.0

    /// One slot of a chart: its start (Unix seconds), its mean, its least and greatest.
    struct Point: Sendable, Equatable {
        var time: Int64
        var mean: Double
        var low: Double
        var high: Double
    }

    /// What a chart spans: `from` to `to` (Unix seconds), in slots of `step` seconds, labelled in `zone`.
    struct Window: Sendable {
        var from: Int64
        var to: Int64
        var step: Int64
        var zone: TimeZoneRules
    }

    /// An event on the time axis: when, how it looks (``severity(_:)``), what its tooltip says.
    struct Mark: Sendable {
        var time: Int64
        var severity: String
        var title: String
    }

    /// A span shaded on the chart (an outage): from, to, its tooltip.
    struct Span: Sendable {
        var from: Int64
        var to: Int64
        var title: String
    }

    /// How an event of `kind` looks on a chart: `bad` for a condition that needs someone, `ok`
    /// for its end, `info` for the rest (self-tests, the exporter).
    static func severity(_ kind: HistoryEvent.Kind) -> String {
        switch kind {
        case .selfTestStarted, .selfTestFinished, .exporterStarted, .exporterStopped, .reloaded: "info"
        default: kind.isNormal ? "ok" : "bad"
        }
    }

    /// The chart of `points` over `window`, on `fixedRange` or, without one, on the range of the
    /// values; `spans` shaded and `marks` drawn as ticks across the plot.
    static func svg(title: String, points: [Point], window: Window, spans: [Span] = [], marks: [Mark] = [],
                    fixedRange: ClosedRange<Double>?) -> String {
        let samples = points.filter { $0.mean.isFinite && $0.low.isFinite && $0.high.isFinite && $0.time >= window.from - window.step
            && $0.time < window.to }
        var range = fixedRange ?? {
            guard let low = samples.map(\.low).min(), let high = samples.map(\.high).max() else { return 0...1 }
            let pad = max((high - low) * 0.1, 1)
            // A reading that is never negative (watts, minutes, volts) keeps its axis from zero up.
            return (low >= 0 ? max(0, low - pad) : low - pad).rounded(.down)...(high + pad).rounded(.up)
        }()
        if range.upperBound <= range.lowerBound { range = range.lowerBound...(range.lowerBound + 1) }
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let span = Double(max(window.to - window.from, 1))
        func x(_ time: Int64) -> Double {
            left + min(max(Double(time - window.from) / span, 0), 1) * plotWidth
        }
        // A slot is drawn at its middle.
        func slotX(_ time: Int64) -> Double { x(time + window.step / 2) }
        func y(_ reading: Double) -> Double {
            let clamped = min(max(reading, range.lowerBound), range.upperBound)
            return top + (1 - (clamped - range.lowerBound) / (range.upperBound - range.lowerBound)) * plotHeight
        }
        func coordinate(_ number: Double) -> String { String(fixed: number, fractionDigits: 1) }
        let label = StatusRender.escaped(title)
        var out = "<figure class=\"chart\"><figcaption>\(label)</figcaption>"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(label)\">"
        for outage in spans where outage.to > window.from && outage.from < window.to {
            let start = x(outage.from)
            out += "<rect class=\"outage\" x=\"\(coordinate(start))\" y=\"\(coordinate(top))\" "
            out += "width=\"\(coordinate(max(x(outage.to) - start, 1.5)))\" height=\"\(coordinate(plotHeight))\">"
            out += "<title>\(StatusRender.escaped(outage.title))</title></rect>"
        }
        // Grid: bottom, middle and top of the range, with their values.
        for fraction in [0.0, 0.5, 1.0] {
            let reading = range.lowerBound + fraction * (range.upperBound - range.lowerBound)
            let lineY = coordinate(y(reading))
            out += "<line class=\"grid\" x1=\"\(coordinate(left))\" y1=\"\(lineY)\" x2=\"\(coordinate(width - right))\" y2=\"\(lineY)\"/>"
            out += "<text class=\"axis\" x=\"\(coordinate(left - 4))\" y=\"\(lineY)\" text-anchor=\"end\" dominant-baseline=\"middle\">"
            out += String(fixed: reading, fractionDigits: range.upperBound - range.lowerBound < 5 ? 1 : 0) + "</text>"
        }
        for (time, text) in ticks(window) {
            let tickX = coordinate(x(time))
            out += "<line class=\"tick\" x1=\"\(tickX)\" y1=\"\(coordinate(top + plotHeight))\" x2=\"\(tickX)\" y2=\"\(coordinate(top + plotHeight + 4))\"/>"
            out += "<text class=\"axis\" x=\"\(tickX)\" y=\"\(coordinate(height - 6))\" text-anchor=\"middle\">\(text)</text>"
        }
        // Per run of consecutive slots: the band of least to greatest, then the mean's line.
        var run: [Point] = []
        func flush() {
            guard let first = run.first else { return }
            if run.count == 1 {
                if first.high > first.low {
                    out += "<line class=\"band\" x1=\"\(coordinate(slotX(first.time)))\" y1=\"\(coordinate(y(first.high)))\" "
                    out += "x2=\"\(coordinate(slotX(first.time)))\" y2=\"\(coordinate(y(first.low)))\"/>"
                }
                out += "<circle class=\"dot\" cx=\"\(coordinate(slotX(first.time)))\" cy=\"\(coordinate(y(first.mean)))\" r=\"2\"/>"
            } else {
                if run.contains(where: { $0.high > $0.low }) {
                    let upper = run.map { coordinate(slotX($0.time)) + "," + coordinate(y($0.high)) }
                    let lower = run.reversed().map { coordinate(slotX($0.time)) + "," + coordinate(y($0.low)) }
                    out += "<polygon class=\"band\" points=\"\((upper + lower).joined(separator: " "))\"/>"
                }
                out += "<polyline class=\"line\" points=\""
                out += run.map { coordinate(slotX($0.time)) + "," + coordinate(y($0.mean)) }.joined(separator: " ") + "\"/>"
            }
            run.removeAll()
        }
        for sample in samples.sorted(by: { $0.time < $1.time }) {
            if let previous = run.last, sample.time - previous.time > window.step { flush() }
            run.append(sample)
        }
        flush()
        // One tick per pixel and look (events at the same instant, or closer than a pixel, are
        // one tick: its tooltip the newest's): a year of flapping alarms stays a few KB.
        var drawn: Set<String> = []
        for mark in marks where mark.time >= window.from && mark.time < window.to {
            let markX = String(fixed: x(mark.time).rounded(), fractionDigits: 0)
            guard drawn.insert(markX + mark.severity).inserted else { continue }
            out += "<line class=\"event event-\(mark.severity)\" x1=\"\(markX)\" y1=\"\(coordinate(top))\" x2=\"\(markX)\" "
            out += "y2=\"\(coordinate(top + plotHeight))\"><title>\(StatusRender.escaped(mark.title))</title></line>"
        }
        out += "</svg></figure>\n"
        return out
    }

    /// The time axis's ticks: on local hours, days or months (whichever gives a handful over the
    /// window), each labelled in the zone's local time (`15:00`, `11-26`, `2026-11`).
    static func ticks(_ window: Window) -> [(Int64, String)] {
        let span = window.to - window.from
        guard span > 0 else { return [] }
        let zone = window.zone
        func local(_ time: Int64) -> LogTimestamp? {
            StatusRender.localTime(Date(timeIntervalSince1970: Double(time)), zone)
        }
        var ticks: [(Int64, String)] = []
        if span > 120 * 86_400 {
            // Month starts (local midnight on the 1st), labelled by year and month.
            guard let first = local(window.from) else { return [] }
            let localSeconds = Int64(first.secondsSince1970.rounded(.down))
            let (year, month, _) = CivilDate.date(days: CivilDate.days(containing: localSeconds))
            var (nextYear, nextMonth) = month == 12 ? (year + 1, Int64(1)) : (year, month + 1)
            let every: Int64 = span > 400 * 86_400 ? 3 : span > 200 * 86_400 ? 2 : 1
            while ticks.count < 40 {
                let midnight = CivilDate.days(year: nextYear, month: nextMonth, day: 1) * 86_400
                let time = midnight - Int64(zone.offset(at: midnight))
                if time >= window.to { break }
                if (nextMonth - 1) % every == 0, let text = local(time) { ticks.append((time, text.text(.month))) }
                (nextYear, nextMonth) = nextMonth == 12 ? (nextYear + 1, 1) : (nextYear, nextMonth + 1)
            }
            return ticks
        }
        // Local hours or days, every `step` seconds of local time.
        let step: Int64 = span <= 2 * 86_400 ? (span <= 12 * 3_600 ? 3_600 : 4 * 3_600)
            : span <= 10 * 86_400 ? 86_400 : span <= 40 * 86_400 ? 5 * 86_400 : 14 * 86_400
        let offset = Int64(zone.offset(at: window.from))
        var localTime = window.from + offset
        localTime += (step - ((localTime % step) + step) % step) % step
        while ticks.count < 40 {
            // The instant of that local time (the offset then: a change of offset moves the tick, not the label).
            let time = localTime - Int64(zone.offset(at: localTime - offset))
            if time >= window.to { break }
            if time >= window.from, let text = local(time) {
                ticks.append((time, text.text(step < 86_400 ? .hourMinute : .monthDay)))
            }
            localTime += step
        }
        return ticks
    }
}
