import WPLogging

/// A 24-hour line chart as inline SVG: presentation by classes of the stylesheet (the
/// Content-Security-Policy allows no `style` attribute), a gap where slots are missing.
enum StatusChart {
    static let width = 720.0
    static let height = 180.0
    static let left = 44.0
    static let right = 8.0
    static let top = 8.0
    static let bottom = 22.0

    /// The chart of `value` over the 24 hours of slots ending at slot `end`, on `fixedRange`
    /// or, without one, on the range of the values.
    static func svg(title: String, points: [StatusHistory.Point], end: Int, value: KeyPath<StatusHistory.Point, Float32>,
                    fixedRange: ClosedRange<Double>?) -> String {
        let samples = points.compactMap { point -> (slot: Int, value: Double)? in
            let reading = Double(point[keyPath: value])
            return reading.isFinite ? (Int(point.slot), reading) : nil
        }
        var range = fixedRange ?? {
            let values = samples.map(\.value)
            guard let low = values.min(), let high = values.max() else { return 0...1 }
            let pad = max((high - low) * 0.1, 1)
            return (low - pad).rounded(.down)...(high + pad).rounded(.up)
        }()
        if range.upperBound <= range.lowerBound { range = range.lowerBound...(range.lowerBound + 1) }
        let start = end - StatusHistory.capacity + 1
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ slot: Int) -> Double { left + Double(slot - start) / Double(StatusHistory.capacity - 1) * plotWidth }
        func y(_ reading: Double) -> Double {
            let clamped = min(max(reading, range.lowerBound), range.upperBound)
            return top + (1 - (clamped - range.lowerBound) / (range.upperBound - range.lowerBound)) * plotHeight
        }
        func coordinate(_ number: Double) -> String { String(fixed: number, fractionDigits: 1) }
        let label = StatusRender.escaped(title)
        var out = "<figure class=\"chart\"><figcaption>\(label)</figcaption>"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(label)\">"
        // Grid: bottom, middle and top of the range, with their values.
        for fraction in [0.0, 0.5, 1.0] {
            let reading = range.lowerBound + fraction * (range.upperBound - range.lowerBound)
            let lineY = coordinate(y(reading))
            out += "<line class=\"grid\" x1=\"\(coordinate(left))\" y1=\"\(lineY)\" x2=\"\(coordinate(width - right))\" y2=\"\(lineY)\"/>"
            out += "<text class=\"axis\" x=\"\(coordinate(left - 4))\" y=\"\(lineY)\" text-anchor=\"end\" dominant-baseline=\"middle\">"
            out += String(fixed: reading, fractionDigits: 0) + "</text>"
        }
        for (slot, name) in [(start, "-24h"), (start + StatusHistory.capacity / 2, "-12h"), (end, "0")] {
            out += "<text class=\"axis\" x=\"\(coordinate(x(slot)))\" y=\"\(coordinate(height - 6))\" text-anchor=\"middle\">\(name)</text>"
        }
        // One polyline per run of consecutive slots.
        var run: [String] = []
        var previous: Int?
        func flush() {
            if run.count == 1 {
                let parts = run[0].split(separator: ",")
                out += "<circle class=\"dot\" cx=\"\(parts[0])\" cy=\"\(parts[1])\" r=\"2\"/>"
            } else if run.count > 1 {
                out += "<polyline class=\"line\" points=\"\(run.joined(separator: " "))\"/>"
            }
            run.removeAll()
        }
        for sample in samples where sample.slot >= start && sample.slot <= end {
            if let previous, sample.slot != previous + 1 { flush() }
            run.append(coordinate(x(sample.slot)) + "," + coordinate(y(sample.value)))
            previous = sample.slot
        }
        flush()
        out += "</svg></figure>\n"
        return out
    }
}
