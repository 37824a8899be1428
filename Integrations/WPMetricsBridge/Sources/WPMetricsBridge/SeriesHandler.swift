import CoreMetrics
import WPMetrics

/// One swift-metrics handler: a series (label values) of a WPMetrics vector, or nothing when
/// the metric was dropped (see ``RegistryMetricsFactory``). A single class serves every handler
/// protocol; the methods a protocol doesn't reach are never called for that kind.
final class SeriesHandler: CounterHandler, FloatingPointCounterHandler, MeterHandler, RecorderHandler,
    TimerHandler {
    /// Where updates go.
    enum Target: Sendable {
        case counter(CounterVec)
        case gauge(GaugeVec)
        case summary(SummaryVec)
        case timer(TimerVec)
        /// A dropped metric: updates are discarded.
        case none

        /// The vector, for identity comparisons.
        var vector: AnyObject? {
            switch self {
            case .counter(let vec): return vec
            case .gauge(let vec): return vec
            case .summary(let vec): return vec
            case .timer(let vec): return vec
            case .none: return nil
            }
        }
    }

    let target: Target
    /// The Prometheus family name, the key of the factory's table.
    let name: String
    /// Label values in the order of the family's label names.
    let values: [String]

    init(target: Target, name: String, values: [String]) {
        self.target = target
        self.name = name
        self.values = values
    }

    static func dropped(_ name: String) -> SeriesHandler {
        SeriesHandler(target: .none, name: name, values: [])
    }

    // Counter and floating-point counter. A negative amount is ignored (counters only go up).
    func increment(by amount: Int64) {
        increment(by: Double(amount))
    }

    func increment(by amount: Double) {
        switch target {
        case .counter(let vec): try? vec.labels(values).increment(by: amount)
        case .gauge(let vec): try? vec.labels(values).increment(by: amount)
        case .summary, .timer, .none: break
        }
    }

    /// Resets a counter to zero: the series is removed and starts again at the next increment.
    func reset() {
        if case .counter(let vec) = target { _ = vec.remove(values) }
    }

    // Meter.
    func set(_ value: Int64) { set(Double(value)) }

    func set(_ value: Double) {
        if case .gauge(let vec) = target { try? vec.labels(values).set(value) }
    }

    func decrement(by amount: Double) {
        if case .gauge(let vec) = target { try? vec.labels(values).decrement(by: amount) }
    }

    // Recorder: a gauge when not aggregating, a summary when aggregating.
    func record(_ value: Int64) { record(Double(value)) }

    func record(_ value: Double) {
        switch target {
        case .gauge(let vec): try? vec.labels(values).set(value)
        case .summary(let vec): try? vec.labels(values).observe(value)
        case .counter, .timer, .none: break
        }
    }

    // Timer: whole nanoseconds, rendered in seconds (see TimerVec).
    func recordNanoseconds(_ duration: Int64) {
        if case .timer(let vec) = target { vec.record(values, nanoseconds: duration) }
    }

    /// Removes this series; returns whether its family has no series left.
    func removeSeries() -> Bool {
        switch target {
        case .counter(let vec): _ = vec.remove(values); return vec.count == 0
        case .gauge(let vec): _ = vec.remove(values); return vec.count == 0
        case .summary(let vec): _ = vec.remove(values); return vec.count == 0
        case .timer(let vec): vec.remove(values); return vec.count == 0
        case .none: return false
        }
    }
}
