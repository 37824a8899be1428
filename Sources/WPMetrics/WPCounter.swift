import Synchronization

/// A value that only goes up (requests served, bytes sent, energy delivered).
///
/// Safe to update from any thread; updates are lock-free. A negative or NaN increment is
/// rejected with an error and leaves the value untouched.
///
/// ```swift
/// let requests = try registry.counter(name: "http_requests_total", help: "Requests served.")
/// requests.increment()
/// try requests.increment(by: 3)
/// ```
public final class WPCounter: Collector, SampledMetric {
    /// The counter's family descriptor.
    public let descriptor: MetricDescriptor
    private let bits = Atomic<UInt64>(0)

    /// Creates an unregistered counter (see ``MetricRegistry/register(_:)``).
    ///
    /// - Parameters:
    ///   - name: Metric name, conventionally ending in `_total`.
    ///   - help: Help text.
    ///   - unit: Optional OpenMetrics unit (the name must end with `_<unit>_total`).
    /// - Throws: ``MetricsError`` for an invalid name or unit.
    public convenience init(name: String, help: String, unit: String? = nil) throws(MetricsError) {
        self.init(descriptor: try MetricDescriptor(name: name, help: help, type: .counter, unit: unit).validated())
    }

    init(descriptor: MetricDescriptor) {
        self.descriptor = descriptor
    }

    /// Adds one.
    public func increment() {
        add(1)
    }

    /// Adds `amount`, which must be zero or positive.
    ///
    /// - Parameter amount: The increment.
    /// - Throws: ``MetricsError/negativeCounterIncrement(metric:amount:)`` for negative or NaN.
    public func increment(by amount: Double) throws(MetricsError) {
        guard amount >= 0 else { throw .negativeCounterIncrement(metric: descriptor.name, amount: amount) }
        add(amount)
    }

    /// The current total.
    public var value: Double {
        Double(bitPattern: bits.load(ordering: .relaxed))
    }

    /// The current total, as a counter sample.
    public var sampleValue: SampleValue { .counter(value) }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// The family with the counter's one sample.
    public func collect() -> [MetricFamily] { singleFamily(descriptor) }

    private func add(_ amount: Double) {
        var old = bits.load(ordering: .relaxed)
        while true {
            let new = (Double(bitPattern: old) + amount).bitPattern
            let (exchanged, original) = bits.compareExchange(expected: old, desired: new, ordering: .relaxed)
            if exchanged { return }
            old = original
        }
    }
}
