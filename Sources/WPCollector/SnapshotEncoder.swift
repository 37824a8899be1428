import WPMetrics

/// Renders a snapshot's families in both formats with one encoding pass, then gzips both
/// (at once, in two child tasks, for a collection).
///
/// The text format and OpenMetrics differ only in their family headers (`# TYPE` names of
/// counters and info families, `# UNIT` lines, the final `# EOF`) as long as no sample carries
/// a `_created` time and no histogram has a negative sum or bound — which holds for every
/// family the collector builds. So each family's sample lines are encoded once by WPMetrics'
/// text encoder and copied behind the family's OpenMetrics header. A family outside that
/// shape is encoded twice, so the result is always what the two encoders would produce (the
/// golden tests compare both bodies byte for byte).
enum SnapshotEncoder {
    /// The encoded and compressed bodies.
    struct Bodies: Sendable {
        var text: [UInt8]
        var textGzip: [UInt8]
        var openMetrics: [UInt8]
        var openMetricsGzip: [UInt8]
    }

    /// Encodes `families` (OpenMetrics without `# EOF`) and gzips both bodies, one after the
    /// other, on the calling thread.
    ///
    /// - Parameters:
    ///   - families: the families, already sorted.
    ///   - textCapacity: the previous text body size, to reserve the buffers once.
    /// - Returns: both bodies, plain and gzipped.
    static func encode(_ families: [MetricFamily], textCapacity: Int) -> Bodies {
        let (text, openMetrics) = plain(families, textCapacity: textCapacity)
        return Bodies(text: text, textGzip: MetricsSnapshot.gzipMember(of: text), openMetrics: openMetrics,
                      openMetricsGzip: MetricsSnapshot.gzipMember(of: openMetrics))
    }

    /// Like ``encode(_:textCapacity:)``, the two gzips at once (a child task for one).
    static func encodeConcurrently(_ families: [MetricFamily], textCapacity: Int) async -> Bodies {
        let (text, openMetrics) = plain(families, textCapacity: textCapacity)
        async let textGzip = MetricsSnapshot.gzipMember(of: text)
        let openMetricsGzip = MetricsSnapshot.gzipMember(of: openMetrics)
        return Bodies(text: text, textGzip: await textGzip, openMetrics: openMetrics, openMetricsGzip: openMetricsGzip)
    }

    /// Both plain bodies.
    private static func plain(_ families: [MetricFamily], textCapacity: Int) -> (text: [UInt8], openMetrics: [UInt8]) {
        let textEncoder = ExpositionEncoder(format: .text)
        let openMetricsEncoder = ExpositionEncoder(format: .openMetrics)
        var text: [UInt8] = []
        var openMetrics: [UInt8] = []
        text.reserveCapacity(textCapacity + textCapacity / 8 + 4096)
        openMetrics.reserveCapacity(textCapacity + textCapacity / 8 + 4096)
        var header: [UInt8] = []
        for family in families {
            guard isShareable(family), let empty = headerOnly(family) else {
                textEncoder.encode(family, into: &text)
                openMetricsEncoder.encode(family, into: &openMetrics)
                continue
            }
            header.removeAll(keepingCapacity: true)
            textEncoder.encode(empty, into: &header)
            let start = text.count
            textEncoder.encode(family, into: &text)
            openMetricsEncoder.encode(empty, into: &openMetrics)
            openMetrics.append(contentsOf: text[(start + header.count)...])
        }
        return (text, openMetrics)
    }

    /// Whether the family's sample lines are the same in both formats.
    static func isShareable(_ family: MetricFamily) -> Bool {
        family.samples.allSatisfy { sample in
            guard sample.created == nil else { return false }
            switch sample.value {
            case .gauge, .counter: return true
            case .histogram(let histogram):
                return histogram.sum >= 0 && (histogram.upperBounds.first ?? 0) >= 0
            case .summary: return false
            }
        }
    }

    /// The family without samples: encodes to its header only.
    static func headerOnly(_ family: MetricFamily) -> MetricFamily? {
        try? MetricFamily(name: family.name, help: family.help, type: family.type, unit: family.unit,
                          labelNames: family.labelNames)
    }
}
