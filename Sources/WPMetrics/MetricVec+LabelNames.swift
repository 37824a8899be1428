extension MetricVec {
    /// The child for these labels given by name, created on first use:
    /// `try requests.labels(["method": "GET", "code": "200"])`.
    ///
    /// - Parameter labels: One value per label name of the vector, in any order.
    /// - Returns: The child instrument.
    /// - Throws: ``MetricsError/invalidLabelName(_:metric:)`` for a name the vector does not
    ///   have, ``MetricsError/labelCountMismatch(metric:expected:got:)`` when one is missing.
    public func labels(_ labels: [String: String]) throws(MetricsError) -> Child {
        for name in labels.keys where !descriptor.labelNames.contains(name) {
            throw .invalidLabelName(name, metric: descriptor.name)
        }
        guard labels.count == descriptor.labelNames.count else {
            throw .labelCountMismatch(metric: descriptor.name, expected: descriptor.labelNames.count, got: labels.count)
        }
        return try self.labels(descriptor.labelNames.map { labels[$0] ?? "" })
    }
}

extension Histogram {
    /// Observes a duration, in seconds (the Prometheus base unit).
    public func observe(_ duration: Duration) {
        observe(duration.secondsValue)
    }
}

extension Summary {
    /// Observes a duration, in seconds (the Prometheus base unit).
    public func observe(_ duration: Duration) {
        observe(duration.secondsValue)
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
