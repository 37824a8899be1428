package import WPBytes
package import FoundationEssentials
package import WPCompression
package import WPMetrics

/// One server's part of a merged exposition: each family's header and its sample lines, the
/// lines already carrying the server's labels, each piece also deflated on its own.
///
/// A multi-server exporter cannot re-render nor re-compress 185,000 series every time one of
/// fifty servers finishes a collection. Each server's collector renders its own families into
/// chunks once per collection; ``MergedExposition`` then builds the whole exposition by
/// concatenating them family by family (HELP/TYPE once, every server's lines after it) and the
/// gzip bodies by concatenating the deflated chunks (see ``DeflatedChunk/gzipMember(_:)``).
package struct ExpositionChunks: Sendable {
    /// One family of one server, its bytes slices of the server's ``ExpositionChunks/block``.
    package struct Family: Sendable {
        /// The name the text format shows (info families end in `_info`): the merge order.
        package var name: String
        /// `# HELP` and `# TYPE` lines in the text format.
        package var textHeaderSlice: ByteSlice
        /// `# HELP`, `# TYPE` and `# UNIT` lines in OpenMetrics.
        package var openMetricsHeaderSlice: ByteSlice
        /// The sample lines, with the server's labels.
        package var textSlice: ByteSlice
        /// The OpenMetrics sample lines when they differ from ``textSlice`` (never for the
        /// collector's own families), else `nil`.
        package var openMetricsSlice: ByteSlice?
        package var textHeaderDeflated: DeflatedChunk
        package var openMetricsHeaderDeflated: DeflatedChunk
        package var textDeflated: DeflatedChunk
        package var openMetricsDeflated: DeflatedChunk?
        /// Sample lines in ``textSlice``.
        package var lineCount: Int

        /// The OpenMetrics sample lines, shared with the text ones when they do not differ.
        package var openMetricsLines: ByteSlice { openMetricsSlice ?? textSlice }
    }

    /// The families, sorted by ``Family/name``.
    package var families: [Family]
    /// Devices with live series.
    package var deviceCount: Int
    /// When the collection behind these chunks finished; `nil` before the first.
    package var generatedAt: Date?
    /// Whether every deflated chunk is usable (zlib could allocate its memory).
    package var compressed: Bool
    /// The labels inserted, as rendered (`server="a",site="b"`).
    package var labelPrefix: [UInt8]
    /// Every family's bytes, back to back (the families hold slices of it).
    package let block: ByteBlock

    /// Renders `families` into chunks, inserting `labels` first in every series' label set.
    ///
    /// - Parameters:
    ///   - families: the families, sorted by exposed name.
    ///   - labels: labels added to every series (none for process-wide families).
    ///   - excluding: names of families left out (served once for the whole process instead).
    ///   - deviceCount: devices with live series.
    ///   - generatedAt: when the collection finished.
    package init(families: [MetricFamily], labels: [SeriesLabel], excluding: Set<String> = [],
                deviceCount: Int, generatedAt: Date?) {
        let prefix = SeriesLabel.rendered(labels)
        let textEncoder = ExpositionEncoder(format: .text)
        let openMetricsEncoder = ExpositionEncoder(format: .openMetrics)
        let deflater = ChunkDeflater()
        var compressed = true
        func deflate(_ bytes: [UInt8]) -> DeflatedChunk {
            if let chunk = deflater.chunk(bytes[...]) { return chunk }
            compressed = false
            return .empty
        }
        // Each family's pieces are rendered into arrays, then copied into one block.
        struct Rendered {
            var name: String
            var textHeader: [UInt8]
            var openMetricsHeader: [UInt8]
            var text: (bytes: [UInt8], lines: Int)
            var openMetrics: [UInt8]?
            /// In block order.
            var pieces: [[UInt8]] { [textHeader, openMetricsHeader, text.bytes] + (openMetrics.map { [$0] } ?? []) }
        }
        var rendered: [Rendered] = []
        rendered.reserveCapacity(families.count)
        var whole: [UInt8] = []
        for family in families where !excluding.contains(family.name) {
            let empty = SnapshotEncoder.headerOnly(family) ?? family
            var textHeader: [UInt8] = []
            textEncoder.encode(empty, into: &textHeader)
            var openMetricsHeader: [UInt8] = []
            openMetricsEncoder.encode(empty, into: &openMetricsHeader)
            whole.removeAll(keepingCapacity: true)
            textEncoder.encode(family, into: &whole)
            let text = Self.labelled(whole[min(textHeader.count, whole.count)...], prefix: prefix)
            var openMetrics: (bytes: [UInt8], lines: Int)?
            if !SnapshotEncoder.isShareable(family) {
                whole.removeAll(keepingCapacity: true)
                openMetricsEncoder.encode(family, into: &whole)
                openMetrics = Self.labelled(whole[min(openMetricsHeader.count, whole.count)...], prefix: prefix)
            }
            rendered.append(Rendered(name: family.exposedName, textHeader: textHeader, openMetricsHeader: openMetricsHeader,
                                     text: text, openMetrics: openMetrics?.bytes))
        }
        let block = ByteBlock(rendered.flatMap(\.pieces))
        var offset = 0
        func slice(_ bytes: [UInt8]) -> ByteSlice {
            defer { offset += bytes.count }
            return ByteSlice(block: block, range: offset..<offset + bytes.count)
        }
        self.families = rendered.map { family in
            Family(name: family.name, textHeaderSlice: slice(family.textHeader),
                   openMetricsHeaderSlice: slice(family.openMetricsHeader), textSlice: slice(family.text.bytes),
                   openMetricsSlice: family.openMetrics.map(slice),
                   textHeaderDeflated: deflate(family.textHeader), openMetricsHeaderDeflated: deflate(family.openMetricsHeader),
                   textDeflated: deflate(family.text.bytes), openMetricsDeflated: family.openMetrics.map(deflate),
                   lineCount: family.text.lines)
        }
        self.block = block
        self.deviceCount = deviceCount
        self.generatedAt = generatedAt
        self.compressed = compressed
        self.labelPrefix = prefix
    }

    /// This server's families alone, without the inserted labels: its `/probe` body (text,
    /// or OpenMetrics without `# EOF`). Built on each call (a pass over the server's lines).
    ///
    /// - Parameter openMetrics: OpenMetrics instead of the text format.
    /// - Returns: the body, byte for byte what a collector without series labels renders for
    ///   the same families.
    package func standalone(openMetrics: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(block.count)
        for family in families {
            out.append(contentsOf: (openMetrics ? family.openMetricsHeaderSlice : family.textHeaderSlice).bytes)
            Self.unlabelled(openMetrics ? family.openMetricsLines.bytes : family.textSlice.bytes, prefix: labelPrefix, into: &out)
        }
        return out
    }

    /// Undoes ``labelled(_:prefix:)``: removes `prefix` and its `,` (or the braces around a
    /// label set that held only it) from each line.
    static func unlabelled(_ lines: UnsafeRawBufferPointer, prefix: [UInt8], into out: inout [UInt8]) {
        guard !prefix.isEmpty else {
            out.append(contentsOf: lines)
            return
        }
        var start = 0
        while start < lines.count {
            let end = lines[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? lines.count
            let line = lines[start..<end]
            guard let brace = line.firstIndex(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: " ") }),
                  line[brace] == UInt8(ascii: "{"), brace + 1 + prefix.count < end,
                  line[(brace + 1)..<(brace + 1 + prefix.count)].elementsEqual(prefix) else {
                out.append(contentsOf: line)
                start = end
                continue
            }
            let after = brace + 1 + prefix.count
            if line[after] == UInt8(ascii: "}") {
                out.append(contentsOf: line[start..<brace])
                out.append(contentsOf: line[(after + 1)...])
            } else {
                out.append(contentsOf: line[start...brace])
                out.append(contentsOf: line[(after + 1)...])
            }
            start = end
        }
    }

    /// Sample lines with `prefix` inserted first in each label set: `name{a="b"} 1` becomes
    /// `name{server="x",a="b"} 1` and `name 1` becomes `name{server="x"} 1`. A metric name
    /// holds neither `{` nor a space, so the first of them ends it.
    static func labelled(_ lines: ArraySlice<UInt8>, prefix: [UInt8]) -> (bytes: [UInt8], lines: Int) {
        var out: [UInt8] = []
        var count = 0
        if prefix.isEmpty {
            for byte in lines where byte == UInt8(ascii: "\n") { count += 1 }
            return (Array(lines), count)
        }
        out.reserveCapacity(lines.count + lines.count / 2)
        var start = lines.startIndex
        while start < lines.endIndex {
            let end = lines[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? lines.endIndex
            let line = lines[start..<end]
            count += 1
            if line.first == UInt8(ascii: "#") {
                out.append(contentsOf: line)
            } else if let cut = line.firstIndex(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: " ") }) {
                if line[cut] == UInt8(ascii: "{") {
                    out.append(contentsOf: line[start...cut])
                    out.append(contentsOf: prefix)
                    if cut + 1 < end, line[cut + 1] != UInt8(ascii: "}") { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: line[(cut + 1)...])
                } else {
                    out.append(contentsOf: line[start..<cut])
                    out.append(UInt8(ascii: "{"))
                    out.append(contentsOf: prefix)
                    out.append(UInt8(ascii: "}"))
                    out.append(contentsOf: line[cut...])
                }
            } else {
                out.append(contentsOf: line)
            }
            start = end
        }
        return (out, count)
    }
}
