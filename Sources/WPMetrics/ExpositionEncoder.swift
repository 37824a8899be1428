/// Renders metric families into the text format 0.0.4 or OpenMetrics 1.0.0.
///
/// The encoder appends UTF-8 to a caller-owned `[UInt8]`, so a caller that renders every
/// cycle can keep one buffer and reuse its capacity: once the buffer is large enough, rendering
/// performs no heap allocation per sample. Families and samples are rendered in the order
/// given; ``MetricRegistry/collect()`` already sorts them (families by name, samples by label
/// values), and snapshot builders should do the same (see ``MetricFamily/sortSamples()``).
///
/// Escaping follows the specifications exactly: label values escape `\`, `"` and newline; help
/// text escapes `\` and newline (plus `"` in OpenMetrics). Other UTF-8 passes through.
///
/// ```swift
/// let encoder = ExpositionEncoder(format: .openMetrics)
/// var buffer: [UInt8] = []
/// buffer.removeAll(keepingCapacity: true)
/// encoder.encode(families, into: &buffer)
/// ```
public struct ExpositionEncoder: Sendable {
    /// The format this encoder writes.
    public let format: ExpositionFormat

    /// Creates an encoder for one format.
    /// - Parameter format: Text 0.0.4 or OpenMetrics 1.0.0.
    public init(format: ExpositionFormat) {
        self.format = format
    }

    /// Renders `families` into a new byte array.
    ///
    /// - Parameter families: The families, in output order.
    /// - Returns: The complete exposition (with `# EOF` for OpenMetrics).
    public func encode(_ families: [MetricFamily]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(families.reduce(0) { $0 + 64 + $1.samples.count * 96 })
        encode(families, into: &bytes)
        return bytes
    }

    /// Appends the rendering of `families` to `bytes`.
    ///
    /// To combine a prerendered snapshot with families rendered per scrape, render the
    /// snapshot with `terminated: false` and the last part with `terminated: true`, so the
    /// OpenMetrics `# EOF` appears exactly once, at the end.
    ///
    /// - Parameters:
    ///   - families: The families, in output order.
    ///   - bytes: The buffer to append to; call `removeAll(keepingCapacity: true)` between
    ///     cycles to reuse it.
    ///   - terminated: Whether to end with `# EOF` (OpenMetrics only; ignored for text).
    public func encode(_ families: [MetricFamily], into bytes: inout [UInt8], terminated: Bool = true) {
        for family in families {
            encode(family, into: &bytes)
        }
        if terminated, format == .openMetrics {
            bytes.append(contentsOf: "# EOF\n".utf8)
        }
    }

    /// Appends one family (without the OpenMetrics `# EOF` terminator).
    ///
    /// - Parameters:
    ///   - family: The family to render.
    ///   - bytes: The buffer to append to.
    public func encode(_ family: MetricFamily, into bytes: inout [UInt8]) {
        let openMetrics = format == .openMetrics
        let (familyName, sampleName) = Self.names(of: family.name, type: family.type, openMetrics: openMetrics)
        writeHeader(family, familyName: familyName, into: &bytes)
        let labels = LabelWriter(names: family.labelNames)
        let fast = FastLineWriter(name: sampleName, labelNames: family.labelNames)
        var buckets = family.type == .histogram ? HistogramLineWriter(name: familyName, labelNames: family.labelNames) : nil
        for sample in family.samples {
            switch sample.value {
            case .gauge(let value), .counter(let value):
                if !fast.write(sample.labelValues, value, into: &bytes) {
                    writeLine(sampleName, "", labels, sample.labelValues, value, into: &bytes)
                }
                if openMetrics, family.type == .counter, let created = sample.created {
                    writeLine(familyName, "_created", labels, sample.labelValues, created, into: &bytes)
                }
            case .histogram(let histogram):
                writeHistogram(histogram, name: familyName, labels: labels, buckets: &buckets, sample: sample,
                               into: &bytes)
            case .summary(let summary):
                writeSummary(summary, name: familyName, labels: labels, sample: sample, into: &bytes)
            }
        }
    }

    /// The name in a family's `# TYPE` line and the name of its plain samples, in one format.
    static func names(of name: String, type: MetricType, openMetrics: Bool) -> (family: String, sample: String) {
        switch type {
        case .counter:
            let base = name.hasSuffix("_total") ? String(name.dropLast(6)) : name
            return (openMetrics ? base : name, openMetrics ? base + "_total" : name)
        case .info:
            return (openMetrics ? name : name + "_info", name + "_info")
        default:
            return (name, name)
        }
    }

    private func writeHeader(_ family: MetricFamily, familyName: String, into bytes: inout [UInt8]) {
        let openMetrics = format == .openMetrics
        if !family.help.isEmpty {
            bytes.append(contentsOf: "# HELP ".utf8)
            bytes.append(contentsOf: familyName.utf8)
            bytes.append(UInt8(ascii: " "))
            Escaping.appendHelp(family.help, escapeQuotes: openMetrics, to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes.append(contentsOf: "# TYPE ".utf8)
        bytes.append(contentsOf: familyName.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: (openMetrics ? family.type.rawValue : family.type.textFormatName).utf8)
        bytes.append(UInt8(ascii: "\n"))
        if openMetrics, let unit = family.unit {
            bytes.append(contentsOf: "# UNIT ".utf8)
            bytes.append(contentsOf: familyName.utf8)
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: unit.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
    }

    private func writeHistogram(
        _ histogram: HistogramValue, name: String, labels: LabelWriter, buckets: inout HistogramLineWriter?,
        sample: Sample, into bytes: inout [UInt8]
    ) {
        let written = buckets?.write(histogram, sample.labelValues, into: &bytes) ?? false
        for (bound, count) in zip(histogram.upperBounds, histogram.cumulativeCounts) where !written {
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: "_bucket".utf8)
            labels.write(sample.labelValues, extraName: "le", extraValue: bound, into: &bytes)
            bytes.append(UInt8(ascii: " "))
            NumberFormatting.appendUnsigned(count, to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        // OpenMetrics forbids _sum on histograms with negative buckets, and a negative or NaN
        // _sum anywhere; _count must then go too.
        let hasNegativeBucket = (histogram.upperBounds.first ?? 0) < 0
        if format == .text || !(hasNegativeBucket || histogram.sum < 0 || histogram.sum.isNaN) {
            writeLine(name, "_sum", labels, sample.labelValues, histogram.sum, into: &bytes)
            writeCount(name, labels, sample.labelValues, histogram.count, into: &bytes)
        }
        if format == .openMetrics, let created = sample.created {
            writeLine(name, "_created", labels, sample.labelValues, created, into: &bytes)
        }
    }

    private func writeSummary(
        _ summary: SummaryValue, name: String, labels: LabelWriter, sample: Sample, into bytes: inout [UInt8]
    ) {
        for (quantile, value) in zip(summary.quantiles, summary.values) {
            bytes.append(contentsOf: name.utf8)
            labels.write(sample.labelValues, extraName: "quantile", extraValue: quantile, into: &bytes)
            bytes.append(UInt8(ascii: " "))
            NumberFormatting.append(value, to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        if format == .text || !(summary.sum < 0 || summary.sum.isNaN) {
            writeLine(name, "_sum", labels, sample.labelValues, summary.sum, into: &bytes)
        }
        writeCount(name, labels, sample.labelValues, summary.count, into: &bytes)
        if format == .openMetrics, let created = sample.created {
            writeLine(name, "_created", labels, sample.labelValues, created, into: &bytes)
        }
    }

    @inline(__always)
    private func writeLine(
        _ name: String, _ suffix: StaticString, _ labels: LabelWriter, _ values: [String], _ value: Double,
        into bytes: inout [UInt8]
    ) {
        bytes.append(contentsOf: name.utf8)
        if suffix.utf8CodeUnitCount > 0 {
            bytes.append(contentsOf: UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount))
        }
        labels.write(values, into: &bytes)
        bytes.append(UInt8(ascii: " "))
        NumberFormatting.append(value, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    private func writeCount(
        _ name: String, _ labels: LabelWriter, _ values: [String], _ count: UInt64, into bytes: inout [UInt8]
    ) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: "_count".utf8)
        labels.write(values, into: &bytes)
        bytes.append(UInt8(ascii: " "))
        NumberFormatting.appendUnsigned(count, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }
}
