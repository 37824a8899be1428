import FoundationEssentials

/// Builds one ``MetricsSnapshot`` out of several servers' ``ExpositionChunks`` by
/// concatenation only: nothing is rendered nor compressed again.
///
/// Families come out sorted by name, each header once (taken from the first part holding the
/// family), followed by the lines of every part in the order given. The gzip bodies are one
/// member assembled from the parts' deflated chunks (``DeflatedChunk/gzipMember(_:)``), so a
/// merge costs copying the plain bodies (about 15 MB each for 185,000 series) and a CRC
/// combination per chunk.
///
/// ```swift
/// let merged = MergedExposition.snapshot(of: servers.map { $0.snapshot.chunks } + [processWide])
/// ```
public enum MergedExposition {
    /// The merged snapshot of `parts`.
    ///
    /// - Parameters:
    ///   - parts: each server's chunks (and those of process-wide families), in the order
    ///     their series should appear within a family; `nil` parts are skipped.
    ///   - openMetricsBody: whether to build the plain OpenMetrics body too. Prometheus asks
    ///     for OpenMetrics gzipped, so a caller may leave it out and build it on demand with
    ///     ``openMetricsBody(of:)`` (it is as large as the text body).
    /// - Returns: text, OpenMetrics (without `# EOF`; empty unless asked for), both gzipped
    ///   (empty gzip bodies when a part could not be compressed);
    ///   ``MetricsSnapshot/generatedAt`` is the latest part's, ``MetricsSnapshot/deviceCount``
    ///   and ``MetricsSnapshot/seriesCount`` the sums.
    public static func snapshot(of parts: [ExpositionChunks?], openMetricsBody: Bool = true) -> MetricsSnapshot {
        let parts = parts.compactMap { $0 }
        let (byName, textSize) = grouped(parts)
        var text: [UInt8] = []
        text.reserveCapacity(textSize + byName.count * 256)
        var textChunks: [DeflatedChunk] = []
        var openMetricsChunks: [DeflatedChunk] = []
        textChunks.reserveCapacity(byName.count * (parts.count + 1))
        openMetricsChunks.reserveCapacity(byName.count * (parts.count + 1))
        var series = 0
        for name in byName.keys.sorted() {
            guard let families = byName[name], let first = families.first else { continue }
            text.append(contentsOf: first.textHeader)
            textChunks.append(first.textHeaderDeflated)
            openMetricsChunks.append(first.openMetricsHeaderDeflated)
            for family in families {
                text.append(contentsOf: family.text)
                textChunks.append(family.textDeflated)
                openMetricsChunks.append(family.openMetricsDeflated ?? family.textDeflated)
                series += family.lineCount
            }
        }
        let compressed = parts.allSatisfy(\.compressed)
        return MetricsSnapshot(text: text, textGzip: compressed ? DeflatedChunk.gzipMember(textChunks) : [],
                               openMetrics: openMetricsBody ? Self.openMetricsBody(of: parts) : [],
                               openMetricsGzip: compressed ? DeflatedChunk.gzipMember(openMetricsChunks) : [],
                               generatedAt: parts.compactMap(\.generatedAt).max(),
                               deviceCount: parts.reduce(0) { $0 + $1.deviceCount }, seriesCount: series)
    }

    /// The plain OpenMetrics body (without `# EOF`) of ``snapshot(of:openMetricsBody:)``.
    public static func openMetricsBody(of parts: [ExpositionChunks?]) -> [UInt8] {
        let (byName, size) = grouped(parts.compactMap { $0 })
        var body: [UInt8] = []
        body.reserveCapacity(size + byName.count * 256)
        for name in byName.keys.sorted() {
            guard let families = byName[name], let first = families.first else { continue }
            body.append(contentsOf: first.openMetricsHeader)
            for family in families { body.append(contentsOf: family.openMetrics ?? family.text) }
        }
        return body
    }

    /// The parts' families by name, in part order, and the size of their text lines.
    private static func grouped(_ parts: [ExpositionChunks]) -> ([String: [ExpositionChunks.Family]], Int) {
        var byName: [String: [ExpositionChunks.Family]] = [:]
        var size = 0
        for part in parts {
            for family in part.families {
                byName[family.name, default: []].append(family)
                size += family.text.count
            }
        }
        return (byName, size)
    }
}
