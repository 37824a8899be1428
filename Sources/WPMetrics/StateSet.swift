import Synchronization

/// A set of named states, each true or false, exposed as one 0/1 series per state with the
/// state in a label named like the metric. An OpenMetrics `stateset`; gauges in text format.
///
/// ```swift
/// let mode = try StateSet(name: "ups_mode", help: "Operating mode.", states: ["online", "battery", "bypass"])
/// try mode.select("battery")   // ups_mode{ups_mode="battery"} 1, others 0
/// ```
public final class StateSet: Collector {
    /// The family descriptor; the last label name is the metric name itself.
    public let descriptor: MetricDescriptor
    /// The states, in output order (sorted).
    public let states: [String]
    private let enabled: Mutex<Set<String>>

    /// Creates a state set with every state false.
    ///
    /// - Parameters:
    ///   - name: Metric name; must also be a valid label name (no colons).
    ///   - help: Help text.
    ///   - states: The state names (duplicates are merged).
    /// - Throws: ``MetricsError`` for an invalid name.
    public init(name: String, help: String, states: [String]) throws(MetricsError) {
        self.descriptor = try MetricDescriptor(name: name, help: help, type: .stateSet, labelNames: [name]).validated()
        self.states = Array(Set(states)).sorted()
        self.enabled = Mutex([])
    }

    /// Makes `state` the only true state.
    ///
    /// - Parameter state: One of ``states``.
    /// - Throws: ``MetricsError/invalidLabelName(_:metric:)`` naming an unknown state.
    public func select(_ state: String) throws(MetricsError) {
        guard states.contains(state) else { throw .invalidLabelName(state, metric: descriptor.name) }
        enabled.withLock { $0 = [state] }
    }

    /// Sets one state without touching the others.
    ///
    /// - Parameters:
    ///   - state: One of ``states``.
    ///   - isOn: Whether it is true.
    /// - Throws: ``MetricsError/invalidLabelName(_:metric:)`` for an unknown state.
    public func set(_ state: String, _ isOn: Bool) throws(MetricsError) {
        guard states.contains(state) else { throw .invalidLabelName(state, metric: descriptor.name) }
        enabled.withLock { enabled in
            if isOn { enabled.insert(state) } else { enabled.remove(state) }
        }
    }

    /// The states that are currently true.
    public var current: Set<String> { enabled.withLock { $0 } }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// The family with one 0/1 sample per state, in ``states`` order.
    public func collect() -> [MetricFamily] {
        let on = current
        guard var family = try? descriptor.makeFamily(capacity: states.count) else { return [] }
        for state in states {
            try? family.append(Sample(labelValues: [state], value: .gauge(on.contains(state) ? 1 : 0)))
        }
        return [family]
    }
}
