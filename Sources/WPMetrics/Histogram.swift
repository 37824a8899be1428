import Synchronization

/// Counts observations into configurable buckets (latencies, sizes).
///
/// Each observation increments the first bucket whose upper bound is `>=` the value and adds
/// to the sum. Safe to use from any thread; a scrape sees a consistent state (the `+Inf`
/// bucket always equals the count). NaN observations are ignored, as they would turn the sum
/// into NaN for good.
///
/// ```swift
/// let latency = try registry.histogram(name: "request_duration_seconds", help: "Latency.")
/// latency.observe(0.042)
/// ```
public final class WPHistogram: Collector, SampledMetric {
    /// The histogram's family descriptor.
    public let descriptor: MetricDescriptor
    /// Upper bounds, ascending, ending with `+Inf`.
    public let upperBounds: [Double]

    private struct State {
        var counts: [UInt64]
        var count: UInt64 = 0
        var sum: Double = 0
    }

    private let state: Mutex<State>

    /// Creates an unregistered histogram (see ``MetricRegistry/register(_:)``).
    ///
    /// - Parameters:
    ///   - name: Metric name.
    ///   - help: Help text.
    ///   - unit: Optional OpenMetrics unit (the name must end with `_<unit>`).
    ///   - buckets: Upper bounds, strictly increasing; `+Inf` is added when missing.
    /// - Throws: ``MetricsError`` for invalid names or buckets.
    public convenience init(
        name: String, help: String, unit: String? = nil, buckets: [Double] = Buckets.default
    ) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .histogram, unit: unit).validated()
        self.init(descriptor: descriptor, upperBounds: try Buckets.normalized(buckets, metric: name))
    }

    init(descriptor: MetricDescriptor, upperBounds: [Double]) {
        self.descriptor = descriptor
        self.upperBounds = upperBounds
        self.state = Mutex(State(counts: Array(repeating: 0, count: upperBounds.count)))
    }

    /// Records one observation.
    /// - Parameter value: The observed value; NaN is ignored.
    public func observe(_ value: Double) {
        if value.isNaN { return }
        let index = bucketIndex(value)
        state.withLock { state in
            state.counts[index] &+= 1
            state.count &+= 1
            state.sum += value
        }
    }

    /// The current buckets (cumulative), count and sum.
    public var snapshot: HistogramValue {
        let (counts, count, sum) = state.withLock { ($0.counts, $0.count, $0.sum) }
        var cumulative = counts
        var running: UInt64 = 0
        for index in cumulative.indices {
            running &+= cumulative[index]
            cumulative[index] = running
        }
        return HistogramValue(upperBounds: upperBounds, cumulativeCounts: cumulative, count: count, sum: sum)
    }

    /// The cumulative bucket counts, the count and the sum, read together.
    public var sampleValue: SampleValue { .histogram(snapshot) }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// The family with the histogram's one sample.
    public func collect() -> [MetricFamily] { singleFamily(descriptor) }

    private func bucketIndex(_ value: Double) -> Int {
        // Binary search for the first bound >= value; the last bound is +Inf.
        var low = 0
        var high = upperBounds.count - 1
        while low < high {
            let mid = (low + high) / 2
            if upperBounds[mid] >= value { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
