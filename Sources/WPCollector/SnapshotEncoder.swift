import Dispatch
import Synchronization
import WPMetrics

/// Renders a snapshot's families in both formats with one encoding pass, then gzips both.
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

    /// Encodes `families` (OpenMetrics without `# EOF`) and gzips both bodies on two threads.
    ///
    /// - Parameters:
    ///   - families: the families, already sorted.
    ///   - textCapacity: the previous text body size, to reserve the buffers once.
    /// - Returns: both bodies, plain and gzipped.
    static func encode(_ families: [MetricFamily], textCapacity: Int) -> Bodies {
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
        let compressed = Mutex<[[UInt8]]>([[], []])
        let plain = [text, openMetrics]
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let gzip = MetricsSnapshot.gzipMember(of: plain[index])
            compressed.withLock { $0[index] = gzip }
        }
        let gzips = compressed.withLock { $0 }
        return Bodies(text: text, textGzip: gzips[0], openMetrics: openMetrics, openMetricsGzip: gzips[1])
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
