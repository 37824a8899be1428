import Synchronization

/// A value that goes up and down (temperature, queue length, load in watts).
///
/// Safe to update from any thread; updates are lock-free.
///
/// ```swift
/// let inFlight = try registry.gauge(name: "http_requests_in_flight", help: "Requests in progress.")
/// inFlight.increment()
/// defer { inFlight.decrement() }
/// ```
public final class WPGauge: Collector, SampledMetric {
    /// The gauge's family descriptor.
    public let descriptor: MetricDescriptor
    private let bits = Atomic<UInt64>(0)

    /// Creates an unregistered gauge (see ``MetricRegistry/register(_:)``).
    ///
    /// - Parameters:
    ///   - name: Metric name.
    ///   - help: Help text.
    ///   - unit: Optional OpenMetrics unit (the name must end with `_<unit>`).
    /// - Throws: ``MetricsError`` for an invalid name or unit.
    public convenience init(name: String, help: String, unit: String? = nil) throws(MetricsError) {
        self.init(descriptor: try MetricDescriptor(name: name, help: help, type: .gauge, unit: unit).validated())
    }

    init(descriptor: MetricDescriptor) {
        self.descriptor = descriptor
    }

    /// Sets the value.
    /// - Parameter value: Any value, including infinities and NaN.
    public func set(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    /// Adds `amount` (which may be negative).
    /// - Parameter amount: The change.
    public func increment(by amount: Double = 1) {
        var old = bits.load(ordering: .relaxed)
        while true {
            let new = (Double(bitPattern: old) + amount).bitPattern
            let (exchanged, original) = bits.compareExchange(expected: old, desired: new, ordering: .relaxed)
            if exchanged { return }
            old = original
        }
    }

    /// Subtracts `amount`.
    /// - Parameter amount: The change.
    public func decrement(by amount: Double = 1) {
        increment(by: -amount)
    }

    /// The current value.
    public var value: Double {
        Double(bitPattern: bits.load(ordering: .relaxed))
    }

    /// The current value, as a gauge sample.
    public var sampleValue: SampleValue { .gauge(value) }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// The family with the gauge's one sample.
    public func collect() -> [MetricFamily] { singleFamily(descriptor) }
}
