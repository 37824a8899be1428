import FoundationEssentials

/// One collection's metrics, rendered once in both exposition formats, plain and gzipped.
///
/// Immutable: `/metrics` handlers read the bytes of the latest snapshot without locking
/// anything but the reference swap in ``Collector/snapshot``, so a scrape never waits on
/// WinPower and never sees half a cycle.
///
/// ``openMetrics`` deliberately lacks the final `# EOF\n`: a server appends its per-scrape
/// families (request counters, process metrics) and then the terminator. For gzip responses
/// it sends ``openMetricsGzip`` followed by a second gzip member holding the per-scrape part;
/// concatenated gzip members decode as one stream.
///
/// ```swift
/// let snapshot = collector.snapshot
/// let body = gzipAccepted ? snapshot.textGzip : snapshot.text
/// ```
public final class MetricsSnapshot: Sendable {
    /// The text format 0.0.4 body (of a merged snapshot: empty, see ``textParts``).
    public let text: [UInt8]
    /// The pieces of a merged snapshot's text body, in order, each a slice of a server's
    /// chunks: the body is ``text`` followed by them. Served as they are (``wholeText`` joins
    /// them, at the cost of a copy). Empty for a single collector's snapshot.
    public let textParts: [ByteSlice]
    /// ``text`` compressed as one complete gzip member.
    public let textGzip: [UInt8]
    /// The OpenMetrics 1.0 body without the final `# EOF\n` (of a merged snapshot: empty, see
    /// ``openMetricsParts``).
    public let openMetrics: [UInt8]
    /// The pieces of a merged snapshot's OpenMetrics body, as ``textParts`` are of the text one.
    public let openMetricsParts: [ByteSlice]
    /// ``openMetrics`` compressed as one complete gzip member.
    public let openMetricsGzip: [UInt8]
    /// When the collection that produced this snapshot finished; `nil` before the first.
    public let generatedAt: Date?
    /// Devices with live series in this snapshot.
    public let deviceCount: Int
    /// Samples (lines other than comments) in ``text``.
    public let seriesCount: Int
    /// The families as per-family chunks carrying the collector's
    /// ``CollectorConfiguration/seriesLabels``, for ``MergedExposition``; `nil` when the
    /// collector has no series labels (a single-server exporter). When set, the four bodies
    /// are empty.
    public let chunks: ExpositionChunks?

    /// Creates a snapshot from already-rendered bodies.
    ///
    /// - Parameters:
    ///   - text: the text format body.
    ///   - textGzip: `text` as a gzip member.
    ///   - openMetrics: the OpenMetrics body without `# EOF`.
    ///   - openMetricsGzip: `openMetrics` as a gzip member.
    ///   - generatedAt: when the producing collection finished.
    ///   - deviceCount: devices with live series.
    ///   - seriesCount: samples in `text`.
    ///   - chunks: the labelled per-family chunks, for a merged exposition.
    ///   - textParts: pieces of the text body after `text`.
    ///   - openMetricsParts: pieces of the OpenMetrics body after `openMetrics`.
    public init(text: [UInt8], textGzip: [UInt8], openMetrics: [UInt8], openMetricsGzip: [UInt8],
                generatedAt: Date?, deviceCount: Int, seriesCount: Int, chunks: ExpositionChunks? = nil,
                textParts: [ByteSlice] = [], openMetricsParts: [ByteSlice] = []) {
        self.text = text
        self.textParts = textParts
        self.textGzip = textGzip
        self.openMetrics = openMetrics
        self.openMetricsParts = openMetricsParts
        self.openMetricsGzip = openMetricsGzip
        self.generatedAt = generatedAt
        self.deviceCount = deviceCount
        self.seriesCount = seriesCount
        self.chunks = chunks
    }

    /// The whole text body, ``text`` and ``textParts`` joined (a copy when there are parts).
    public var wholeText: [UInt8] { Self.joined(text, textParts) }

    /// The whole OpenMetrics body (without `# EOF`), ``openMetrics`` and ``openMetricsParts`` joined.
    public var wholeOpenMetrics: [UInt8] { Self.joined(openMetrics, openMetricsParts) }

    private static func joined(_ first: [UInt8], _ parts: [ByteSlice]) -> [UInt8] {
        guard !parts.isEmpty else { return first }
        var whole = first
        whole.reserveCapacity(parts.reduce(first.count) { $0 + $1.count })
        for part in parts { whole.append(contentsOf: part.bytes) }
        return whole
    }

    /// Compresses `bytes` into one complete gzip member, as the snapshot's gzip bodies are.
    ///
    /// For the per-scrape part of a gzip response: send ``textGzip`` (or ``openMetricsGzip``)
    /// followed by `gzipMember(of: perScrapeBytes)`; clients decode the concatenation as one stream.
    ///
    /// - Parameter bytes: the bytes to compress.
    /// - Returns: a gzip member, or an empty array if zlib could not allocate memory.
    public static func gzipMember(of bytes: [UInt8]) -> [UInt8] {
        Gzip.compress(bytes)
    }

    /// A snapshot with empty bodies (each gzip field a valid member of no bytes).
    public static let empty: MetricsSnapshot = {
        let gzipped = Gzip.compress([])
        return MetricsSnapshot(text: [], textGzip: gzipped, openMetrics: [], openMetricsGzip: gzipped,
                               generatedAt: nil, deviceCount: 0, seriesCount: 0)
    }()
}
