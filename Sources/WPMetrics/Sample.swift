/// One series of a ``MetricFamily``: its label values and its value.
///
/// For histograms and summaries one `Sample` is the whole group (`_bucket`, `_sum`, `_count`,
/// quantiles) for one set of label values.
public struct Sample: Sendable, Equatable {
    /// Label values in the order of the family's ``MetricFamily/labelNames``.
    public var labelValues: [String]
    /// The value; its kind must fit the family's type.
    public var value: SampleValue
    /// Optional creation time in seconds since the Unix epoch (OpenMetrics `_created`; counters,
    /// histograms and summaries only; ignored by the text format).
    public var created: Double?

    /// Creates a sample.
    ///
    /// - Parameters:
    ///   - labelValues: One value per family label name, in order.
    ///   - value: The sample's value.
    ///   - created: Optional creation timestamp in seconds since the epoch.
    public init(labelValues: [String], value: SampleValue, created: Double? = nil) {
        self.labelValues = labelValues
        self.value = value
        self.created = created
    }
}

/// The value of one ``Sample``.
public enum SampleValue: Sendable, Equatable {
    /// A gauge, unknown, info (always 1) or state-set (0 or 1) value.
    case gauge(Double)
    /// A counter's total; never negative or NaN.
    case counter(Double)
    /// A classic histogram's cumulative buckets, count and sum.
    case histogram(HistogramValue)
    /// A summary's quantiles, count and sum.
    case summary(SummaryValue)
}

/// A histogram's state at collection time.
public struct HistogramValue: Sendable, Equatable {
    /// Bucket upper bounds, ascending, the last one `+Inf`.
    public var upperBounds: [Double]
    /// Cumulative count of observations `<=` each bound (same length as `upperBounds`).
    public var cumulativeCounts: [UInt64]
    /// Number of observations (equals the `+Inf` bucket).
    public var count: UInt64
    /// Sum of all observations.
    public var sum: Double

    /// Creates a histogram value; ``MetricFamily/append(_:)`` checks its consistency.
    public init(upperBounds: [Double], cumulativeCounts: [UInt64], count: UInt64, sum: Double) {
        self.upperBounds = upperBounds
        self.cumulativeCounts = cumulativeCounts
        self.count = count
        self.sum = sum
    }
}

/// A summary's state at collection time.
public struct SummaryValue: Sendable, Equatable {
    /// The quantile ranks (0...1), ascending.
    public var quantiles: [Double]
    /// The estimated value at each rank (same length as `quantiles`; NaN when empty).
    public var values: [Double]
    /// Number of observations.
    public var count: UInt64
    /// Sum of all observations.
    public var sum: Double

    /// Creates a summary value; ``MetricFamily/append(_:)`` checks its consistency.
    public init(quantiles: [Double], values: [Double], count: UInt64, sum: Double) {
        self.quantiles = quantiles
        self.values = values
        self.count = count
        self.sum = sum
    }
}
