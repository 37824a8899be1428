/// Writes the `_bucket` lines of a histogram family's samples with the label values escaped
/// once per sample and the `le` bounds formatted once per family.
///
/// A histogram of `n` bounds is `n` bucket lines that differ only in their bound and count:
/// `name_bucket{a="x",b="y"` is assembled once per sample, and `",le="10"} ` once per bound
/// (again only when a sample's bounds differ from the previous sample's). The bytes are exactly
/// those of ``LabelWriter/write(_:extraName:extraValue:into:)`` line by line.
struct HistogramLineWriter {
    /// `name_bucket{first="` or `name_bucket{` without labels.
    private let prefix: [UInt8]
    /// `",second="`, ... one per label after the first.
    private let separators: [[UInt8]]
    private let labelCount: Int
    /// The bounds `suffixes` were formatted for.
    private var bounds: [Double] = []
    /// `",le="<bound>"} ` per bound (`le="<bound>"} ` without labels).
    private var suffixes: [[UInt8]] = []
    /// `name_bucket{a="x",b="y"` of the current sample, reused between samples.
    private var head: [UInt8] = []

    init(name: String, labelNames: [String]) {
        var prefix = Array(name.utf8)
        prefix.append(contentsOf: "_bucket{".utf8)
        var separators: [[UInt8]] = []
        for (index, label) in labelNames.enumerated() {
            if index == 0 {
                prefix.append(contentsOf: label.utf8)
                prefix.append(contentsOf: "=\"".utf8)
            } else {
                separators.append(Array("\",\(label)=\"".utf8))
            }
        }
        self.prefix = prefix
        self.separators = separators
        self.labelCount = labelNames.count
    }

    /// Appends one line per bucket of `histogram` for the sample labelled `values`, or returns
    /// false (writing nothing) when `values` does not have one value per label name.
    mutating func write(_ histogram: HistogramValue, _ values: [String], into bytes: inout [UInt8]) -> Bool {
        guard values.count == labelCount else { return false }
        if histogram.upperBounds != bounds { format(histogram.upperBounds) }
        head.removeAll(keepingCapacity: true)
        head.append(contentsOf: prefix)
        for index in 0..<labelCount {
            if index > 0 { head.append(contentsOf: separators[index - 1]) }
            Escaping.appendLabelValue(values[index], to: &head)
        }
        for (suffix, count) in zip(suffixes, histogram.cumulativeCounts) {
            bytes.append(contentsOf: head)
            bytes.append(contentsOf: suffix)
            NumberFormatting.appendUnsigned(count, to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return true
    }

    private mutating func format(_ upperBounds: [Double]) {
        bounds = upperBounds
        suffixes = upperBounds.map { bound in
            var suffix: [UInt8] = labelCount == 0 ? [] : Array("\",".utf8)
            suffix.append(contentsOf: "le=\"".utf8)
            NumberFormatting.append(bound, to: &suffix)
            suffix.append(contentsOf: "\"} ".utf8)
            return suffix
        }
    }
}
