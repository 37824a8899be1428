package import WPBytes
public import FoundationEssentials
import WPCompression

/// One collection's metrics, rendered once in both exposition formats, plain and gzipped.
///
/// Immutable: `/metrics` handlers read the bytes of the latest snapshot without locking
/// anything but the reference swap in ``WinPowerCollector/snapshot``, so a scrape never waits on
/// WinPower and never sees half a cycle.
///
/// ``openMetrics`` deliberately lacks the final `# EOF\n`: a server appends its per-scrape
/// families (request counters, process metrics) and then the terminator. The exporter's own
/// `/metrics` also keeps each body gzipped and continues it with the per-scrape part as one gzip
/// member (only that part is compressed per scrape), which every client decodes whole, including
/// those that stop after the first member (curl 7.88's `--compressed`).
///
/// ```swift
/// let snapshot = collector.snapshot
/// let body = snapshot.wholeText + Array("my_service_up 1\n".utf8)   // a scrape's text body
/// print(snapshot.deviceCount, snapshot.seriesCount)                 // UPSs and series in it
/// ```
public final class MetricsSnapshot: Sendable {
    /// The text format 0.0.4 body (of a merged snapshot: empty, see `textParts`).
    public let text: [UInt8]
    /// The pieces of a merged snapshot's text body, in order, each a slice of a server's
    /// chunks: the body is ``text`` followed by them. Served as they are (``wholeText`` joins
    /// them, at the cost of a copy). Empty for a single collector's snapshot.
    package let textParts: [ByteSlice]
    /// ``text`` compressed as one complete gzip member (a copy: the snapshot keeps it open for
    /// ``gzipBody(openMetrics:appending:)``).
    package var textGzip: [UInt8] { textGzipOpen.member }
    /// The OpenMetrics 1.0 body without the final `# EOF\n` (of a merged snapshot: empty, see
    /// `openMetricsParts`).
    public let openMetrics: [UInt8]
    /// The pieces of a merged snapshot's OpenMetrics body, as ``textParts`` are of the text one.
    package let openMetricsParts: [ByteSlice]
    /// ``openMetrics`` compressed as one complete gzip member (a copy, as ``textGzip``).
    package var openMetricsGzip: [UInt8] { openMetricsGzipOpen.member }
    private let textGzipOpen: OpenGzipMember
    private let openMetricsGzipOpen: OpenGzipMember
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
    package let chunks: ExpositionChunks?

    /// Creates a snapshot from already-rendered bodies.
    ///
    /// - Parameters:
    ///   - text: the text format body.
    ///   - textGzip: `text` as a gzip member; one made by ``DeflatedChunk/gzipMember(_:)`` (as
    ///     the collector's are) is continued by ``gzipBody(openMetrics:appending:)`` as one
    ///     member, any other is followed by a second member.
    ///   - openMetrics: the OpenMetrics body without `# EOF`.
    ///   - openMetricsGzip: `openMetrics` as a gzip member, the same way.
    ///   - generatedAt: when the producing collection finished.
    ///   - deviceCount: devices with live series.
    ///   - seriesCount: samples in `text`.
    ///   - chunks: the labelled per-family chunks, for a merged exposition.
    ///   - textParts: pieces of the text body after `text`.
    ///   - openMetricsParts: pieces of the OpenMetrics body after `openMetrics`.
    package init(text: [UInt8], textGzip: [UInt8], openMetrics: [UInt8], openMetricsGzip: [UInt8],
                generatedAt: Date?, deviceCount: Int, seriesCount: Int, chunks: ExpositionChunks? = nil,
                textParts: [ByteSlice] = [], openMetricsParts: [ByteSlice] = []) {
        self.text = text
        self.textParts = textParts
        self.textGzipOpen = OpenGzipMember(textGzip)
        self.openMetrics = openMetrics
        self.openMetricsParts = openMetricsParts
        self.openMetricsGzipOpen = OpenGzipMember(openMetricsGzip)
        self.generatedAt = generatedAt
        self.deviceCount = deviceCount
        self.seriesCount = seriesCount
        self.chunks = chunks
    }

    /// The whole text body, ``text`` and `textParts` joined (a copy when there are parts).
    public var wholeText: [UInt8] { Self.joined(text, textParts) }

    /// The whole OpenMetrics body (without `# EOF`), ``openMetrics`` and `openMetricsParts` joined.
    public var wholeOpenMetrics: [UInt8] { Self.joined(openMetrics, openMetricsParts) }

    private static func joined(_ first: [UInt8], _ parts: [ByteSlice]) -> [UInt8] {
        guard !parts.isEmpty else { return first }
        var whole = first
        whole.reserveCapacity(parts.reduce(first.count) { $0 + $1.count })
        for part in parts { whole.append(contentsOf: part.bytes) }
        return whole
    }

    /// Whether the snapshot has a gzip body in the format (only zlib running out of memory
    /// leaves it without).
    package func hasGzip(openMetrics: Bool) -> Bool {
        !(openMetrics ? openMetricsGzipOpen : textGzipOpen).head.isEmpty
    }

    /// The gzip response for the body in the format (text or OpenMetrics) followed by `tail`:
    /// `body`, the snapshot's compressed bytes (shared, not copied), then `suffix`, the tail
    /// compressed as blocks of the same member and the member's trailer (the CRC-32 and length
    /// of both, combined). Only the tail is compressed, so a scrape costs what its own part
    /// costs. A snapshot made from a member of another shape gets the tail as a second member.
    package func gzipBody(openMetrics: Bool, appending tail: [UInt8]) -> (body: [UInt8], suffix: [UInt8]) {
        let open = openMetrics ? openMetricsGzipOpen : textGzipOpen
        return (open.head, open.continuation(appending: tail))
    }

    /// Compresses `bytes` into one complete gzip member, as the snapshot's gzip bodies are.
    ///
    /// - Parameter bytes: the bytes to compress.
    /// - Returns: a gzip member, or an empty array if zlib could not allocate memory.
    package static func gzipMember(of bytes: [UInt8]) -> [UInt8] {
        DeflatedChunk.appendableGzipMember(bytes) ?? []
    }

    /// A snapshot with empty bodies (each gzip field a valid member of no bytes).
    public static let empty: MetricsSnapshot = {
        let gzipped = gzipMember(of: [])
        return MetricsSnapshot(text: [], textGzip: gzipped, openMetrics: [], openMetricsGzip: gzipped,
                               generatedAt: nil, deviceCount: 0, seriesCount: 0)
    }()
}
