import Synchronization
import WPMetrics

/// The histogram family of swift-metrics timers of one name: seconds as the OpenMetrics unit
/// (`# UNIT x_seconds seconds`), and sums kept in whole nanoseconds.
///
/// swift-metrics hands timers integer nanoseconds. Adding them up as seconds in a `Double`
/// turns 1 ms + 18 ms into `0.019000000000000003`; here the sum stays an integer until a
/// scrape converts it once, so 19 ms renders `0.019` (exact up to 2⁵³ ns, about 104 days of
/// summed time; beyond that the nearest `Double`). Bucket bounds are compared in nanoseconds
/// too: a duration lands in the first bucket whose bound, in whole nanoseconds, it does not
/// exceed. A negative duration (a clock stepped back) is recorded as 0.
final class TimerVec: Collector {
    let descriptor: MetricDescriptor
    /// Bucket upper bounds in seconds, ending with `+Inf`.
    let upperBounds: [Double]
    /// `upperBounds` in whole nanoseconds (rounded down); the last, `+Inf`, is `UInt64.max`.
    private let thresholds: [UInt64]
    private let series = Mutex<[[String]: Series]>([:])

    private struct Series {
        var counts: [UInt64]
        var count: UInt64 = 0
        var nanoseconds: UInt64 = 0

        /// Counts `duration` in `bucket`; the sum saturates instead of wrapping.
        mutating func add(_ duration: UInt64, in bucket: Int) {
            counts[bucket] &+= 1
            count &+= 1
            let (sum, overflow) = nanoseconds.addingReportingOverflow(duration)
            nanoseconds = overflow ? .max : sum
        }
    }

    /// - Throws: ``MetricsError`` for an invalid name, a reserved label (`le`) or invalid buckets.
    init(name: String, help: String, labelNames: [String], buckets: [Double]) throws(MetricsError) {
        // WPHistogram checks and normalizes the buckets exactly as a WPMetrics histogram would.
        let bounds = try WPHistogram(name: name, help: help, unit: "seconds", buckets: buckets).upperBounds
        descriptor = MetricDescriptor(name: name, help: help, type: .histogram, unit: "seconds", labelNames: labelNames)
        _ = try descriptor.makeFamily()
        upperBounds = bounds
        thresholds = bounds.map { bound in
            guard bound.isFinite else { return .max }
            let nanoseconds = (bound * 1e9).rounded(.down)
            if nanoseconds <= 0 { return 0 }
            return nanoseconds >= 1.8e19 ? .max : UInt64(nanoseconds)
        }
    }

    var descriptors: [MetricDescriptor] { [descriptor] }

    /// Number of series.
    var count: Int { series.withLock { $0.count } }

    /// Records one duration in the series `values`.
    func record(_ values: [String], nanoseconds: Int64) {
        let duration = UInt64(max(nanoseconds, 0))
        var low = 0
        var high = thresholds.count - 1
        while low < high {
            let middle = (low + high) / 2
            if duration <= thresholds[middle] { high = middle } else { low = middle + 1 }
        }
        let bucket = low
        series.withLock { table in
            table[values, default: Series(counts: Array(repeating: 0, count: thresholds.count))].add(duration, in: bucket)
        }
    }

    /// Removes the series `values`; returns whether it existed.
    @discardableResult
    func remove(_ values: [String]) -> Bool {
        series.withLock { $0.removeValue(forKey: values) != nil }
    }

    func collect() -> [MetricFamily] {
        let snapshot = series.withLock { $0 }
        guard var family = try? descriptor.makeFamily(capacity: snapshot.count) else { return [] }
        for (values, state) in snapshot {
            var cumulative: [UInt64] = []
            cumulative.reserveCapacity(state.counts.count)
            var running: UInt64 = 0
            for count in state.counts {
                running &+= count
                cumulative.append(running)
            }
            let value = HistogramValue(upperBounds: upperBounds, cumulativeCounts: cumulative, count: state.count,
                                       sum: Self.seconds(state.nanoseconds))
            try? family.append(Sample(labelValues: values, value: .histogram(value)))
        }
        family.sortSamples()
        return [family]
    }

    /// Whole nanoseconds as seconds, rounded once: 19_000_000 → 0.019.
    static func seconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1e9
    }
}
