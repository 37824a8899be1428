/// WPHistogram bucket layouts.
///
/// ```swift
/// let latency = try WPHistogram(name: "request_seconds", help: "Latency.",
///                             buckets: Buckets.exponential(start: 0.001, factor: 2, count: 12))
/// ```
public enum Buckets {
    /// The Go client's default buckets, tuned for request latencies in seconds.
    public static let `default`: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// `count` buckets starting at `start`, each `width` wider than the previous one.
    ///
    /// - Parameters:
    ///   - start: The first upper bound.
    ///   - width: The distance between bounds; must be positive.
    ///   - count: Number of bounds; must be at least 1.
    /// - Returns: The bounds, ascending (without `+Inf`, which histograms add).
    /// - Throws: ``MetricsError/invalidBucketParameters(_:)``.
    public static func linear(start: Double, width: Double, count: Int) throws(MetricsError) -> [Double] {
        guard count >= 1 else { throw .invalidBucketParameters("linear buckets need count >= 1, got \(count)") }
        guard width > 0, width.isFinite, start.isFinite else {
            throw .invalidBucketParameters("linear buckets need a finite start and a positive width, got start \(start), width \(width)")
        }
        return (0..<count).map { start + Double($0) * width }
    }

    /// `count` buckets starting at `start`, each `factor` times the previous one.
    ///
    /// - Parameters:
    ///   - start: The first upper bound; must be positive.
    ///   - factor: The ratio between bounds; must be greater than 1.
    ///   - count: Number of bounds; must be at least 1.
    /// - Returns: The bounds, ascending (without `+Inf`).
    /// - Throws: ``MetricsError/invalidBucketParameters(_:)``.
    public static func exponential(start: Double, factor: Double, count: Int) throws(MetricsError) -> [Double] {
        guard count >= 1 else { throw .invalidBucketParameters("exponential buckets need count >= 1, got \(count)") }
        guard start > 0, start.isFinite else {
            throw .invalidBucketParameters("exponential buckets need a positive start, got \(start)")
        }
        guard factor > 1, factor.isFinite else {
            throw .invalidBucketParameters("exponential buckets need a factor > 1, got \(factor)")
        }
        var bounds: [Double] = []
        var bound = start
        for _ in 0..<count {
            bounds.append(bound)
            bound *= factor
        }
        return bounds
    }

    /// Validates bounds and appends `+Inf` when missing.
    static func normalized(_ bounds: [Double], metric: String) throws(MetricsError) -> [Double] {
        var result = bounds
        if result.last != .infinity { result.append(.infinity) }
        for bound in result where bound.isNaN {
            throw .invalidBuckets(metric: metric, reason: "NaN is not a bucket bound")
        }
        for index in result.indices.dropFirst() where !(result[index - 1] < result[index]) {
            throw .invalidBuckets(metric: metric, reason: "bounds must be strictly increasing (\(result[index - 1]) then \(result[index]))")
        }
        return result
    }
}
