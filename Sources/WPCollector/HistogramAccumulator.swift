import WPMetrics

/// Cumulative bucket counts for one histogram series, owned by the collector's state.
struct HistogramAccumulator: Sendable {
    /// Upper bounds, ending with `+Inf`.
    let upperBounds: [Double]
    private var counts: [UInt64]
    private var count: UInt64 = 0
    private var sum: Double = 0

    /// - Parameter bounds: finite, increasing upper bounds; `+Inf` is added.
    init(bounds: [Double]) {
        var cleaned = bounds.filter(\.isFinite).sorted()
        cleaned = cleaned.enumerated().filter { $0.offset == 0 || cleaned[$0.offset - 1] < $0.element }.map(\.element)
        upperBounds = cleaned + [.infinity]
        counts = Array(repeating: 0, count: upperBounds.count)
    }

    /// Records one observation; NaN and negative values are ignored.
    mutating func observe(_ value: Double) {
        guard value >= 0 else { return }
        for index in upperBounds.indices where value <= upperBounds[index] {
            counts[index] &+= 1
        }
        count &+= 1
        sum += value
    }

    /// The exposition value: cumulative counts per bound.
    var value: HistogramValue {
        HistogramValue(upperBounds: upperBounds, cumulativeCounts: counts, count: count, sum: sum)
    }
}
