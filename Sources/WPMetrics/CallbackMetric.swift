/// A gauge or counter whose value is read from a closure at scrape time, like Go's
/// `GaugeFunc`/`CounterFunc`: for a value another part of the program already keeps (a queue's
/// length, a cache's hit count) without mirroring it into an instrument.
///
/// The closure is called on the scraping thread, possibly concurrently, and must be quick and
/// non-blocking; for state inside an actor, let the actor publish it to a
/// ``SnapshotCollector`` (or update a ``WPGauge``) instead.
///
/// ```swift
/// let queue = JobQueue()
/// try registry.gaugeFunc(name: "worker_queue_depth", help: "Jobs waiting.") { Double(queue.depth) }
/// ```
public struct CallbackMetric: Collector {
    /// The family descriptor (`.gauge` or `.counter`, no labels).
    public let descriptor: MetricDescriptor
    private let read: @Sendable () -> Double

    /// Creates a callback gauge or counter.
    ///
    /// - Parameters:
    ///   - name: The metric name (validated).
    ///   - help: The help text.
    ///   - type: `.gauge` or `.counter`.
    ///   - unit: An optional unit, a suffix of the name.
    ///   - read: Returns the current value; a counter's must never decrease.
    /// - Throws: ``MetricsError`` for an invalid name or unit, or
    ///   ``MetricsError/valueKindMismatch(metric:expected:)`` for another type.
    public init(name: String, help: String, type: MetricType = .gauge, unit: String? = nil,
                _ read: @escaping @Sendable () -> Double) throws(MetricsError) {
        guard type == .gauge || type == .counter else { throw .valueKindMismatch(metric: name, expected: .gauge) }
        descriptor = try MetricDescriptor(name: name, help: help, type: type, unit: unit).validated()
        self.read = read
    }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// One sample, the value the closure returns now.
    public func collect() -> [MetricFamily] {
        guard var family = try? descriptor.makeFamily(capacity: 1) else { return [] }
        try? family.append(labelValues: [], value: read())
        return [family]
    }
}

extension MetricRegistry {
    /// Registers a gauge whose value `read` returns at each scrape (Go's `GaugeFunc`).
    /// - Throws: ``MetricsError`` for an invalid name or a name already registered.
    @discardableResult
    public func gaugeFunc(name: String, help: String, unit: String? = nil,
                          _ read: @escaping @Sendable () -> Double) throws(MetricsError) -> CallbackMetric {
        try registeredCallback(name: name, help: help, type: .gauge, unit: unit, read)
    }

    /// Registers a counter whose value `read` returns at each scrape (Go's `CounterFunc`);
    /// the value must never decrease.
    /// - Throws: ``MetricsError`` for an invalid name or a name already registered.
    @discardableResult
    public func counterFunc(name: String, help: String, unit: String? = nil,
                            _ read: @escaping @Sendable () -> Double) throws(MetricsError) -> CallbackMetric {
        try registeredCallback(name: name, help: help, type: .counter, unit: unit, read)
    }

    private func registeredCallback(name: String, help: String, type: MetricType, unit: String?,
                                    _ read: @escaping @Sendable () -> Double) throws(MetricsError) -> CallbackMetric {
        let metric = try CallbackMetric(name: name, help: help, type: type, unit: unit, read)
        try register(metric)
        return metric
    }
}
