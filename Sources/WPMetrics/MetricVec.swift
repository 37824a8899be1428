import Synchronization

/// A family of instruments of one kind, one child per combination of label values.
///
/// Use the typealiases ``CounterVec``, ``GaugeVec``, ``HistogramVec`` and ``SummaryVec``.
/// Children are created on first use by ``labels(_:)-(String...)`` and live until
/// ``remove(_:)-(String...)`` or ``reset()``. Safe to use from any thread.
///
/// ```swift
/// let load = try registry.gaugeVec(name: "ups_load_watts", help: "Active power.",
///                                  labelNames: ["device_id", "device_name"])
/// try load.labels("7", "Rack A").set(230.5)
/// ```
public final class MetricVec<Child: SampledMetric>: Collector {
    /// The family descriptor (name, help, type, label names).
    public let descriptor: MetricDescriptor
    private let makeChild: @Sendable () -> Child
    /// The children, kept by the root vector; a curried vector uses its root's.
    private let children = Mutex<[[String]: Child]>([:])
    /// The vector this one was curried from (directly or not), nil for the vector itself.
    private let root: MetricVec<Child>?
    /// Label values fixed by ``curry(_:)``, by position in `descriptor.labelNames`, ascending.
    let curried: [(index: Int, value: String)]

    init(descriptor: MetricDescriptor, makeChild: @escaping @Sendable () -> Child) {
        self.descriptor = descriptor
        self.makeChild = makeChild
        self.root = nil
        self.curried = []
    }

    init(curriedFrom parent: MetricVec<Child>, curried: [(index: Int, value: String)]) {
        self.descriptor = parent.descriptor
        self.makeChild = parent.makeChild
        self.root = parent.root ?? parent
        self.curried = curried
    }

    /// The child for these label values, created on first use.
    ///
    /// - Parameter values: One value per label name, in declaration order (any UTF-8); on a
    ///   curried vector, one per name of ``remainingLabelNames``.
    /// - Returns: The child instrument.
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``.
    public func labels(_ values: String...) throws(MetricsError) -> Child {
        try labels(values)
    }

    /// The child for these label values, created on first use.
    ///
    /// - Parameter values: One value per label name, in declaration order; on a curried
    ///   vector, one per name of ``remainingLabelNames``.
    /// - Returns: The child instrument.
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``.
    public func labels(_ values: [String]) throws(MetricsError) -> Child {
        let expected = descriptor.labelNames.count - curried.count
        guard values.count == expected else {
            throw .labelCountMismatch(metric: descriptor.name, expected: expected, got: values.count)
        }
        return child(remaining: values)
    }

    /// The child for values of the remaining labels, whose count the caller has checked.
    func child(remaining values: [String]) -> Child {
        if let root { return root.child(remaining: fullValues(values)) }
        return children.withLock { children in
            if let child = children[values] { return child }
            let child = makeChild()
            children[values] = child
            return child
        }
    }

    /// Removes the child for these label values, so its series disappears.
    ///
    /// - Parameter values: The label values (of ``remainingLabelNames`` on a curried vector).
    /// - Returns: Whether a child existed.
    @discardableResult
    public func remove(_ values: String...) -> Bool {
        remove(values)
    }

    /// Removes the child for these label values.
    ///
    /// - Parameter values: The label values (of ``remainingLabelNames`` on a curried vector).
    /// - Returns: Whether a child existed.
    @discardableResult
    public func remove(_ values: [String]) -> Bool {
        guard values.count == descriptor.labelNames.count - curried.count else { return false }
        let full = curried.isEmpty ? values : fullValues(values)
        return (root ?? self).children.withLock { $0.removeValue(forKey: full) != nil }
    }

    /// Removes every child (on a curried vector: every child with its curried values).
    public func reset() {
        guard let root else { return children.withLock { $0.removeAll() } }
        root.children.withLock { children in children = children.filter { !matchesCurried($0.key) } }
    }

    /// Number of children (series groups) currently present (on a curried vector: those with
    /// its curried values).
    public var count: Int {
        guard let root else { return children.withLock { $0.count } }
        return root.children.withLock { $0.keys.count(where: matchesCurried) }
    }

    public var descriptors: [MetricDescriptor] { [descriptor] }

    public func collect() -> [MetricFamily] {
        let current = (root ?? self).children.withLock { Array($0) }
        guard var family = try? descriptor.makeFamily(capacity: current.count) else { return [] }
        for (values, child) in current where matchesCurried(values) {
            try? family.append(Sample(labelValues: values, value: child.sampleValue))
        }
        family.sortSamples()
        return [family]
    }

    /// Whether a child's full label values carry this vector's curried values.
    private func matchesCurried(_ values: [String]) -> Bool {
        curried.allSatisfy { values[$0.index] == $0.value }
    }

    /// Full label values: the curried ones in their places, `remaining` in the others, in order.
    private func fullValues(_ remaining: [String]) -> [String] {
        var full: [String] = []
        full.reserveCapacity(descriptor.labelNames.count)
        var next = remaining.startIndex
        var fixed = curried.startIndex
        for index in descriptor.labelNames.indices {
            if fixed < curried.endIndex, curried[fixed].index == index {
                full.append(curried[fixed].value)
                fixed += 1
            } else {
                full.append(remaining[next])
                next += 1
            }
        }
        return full
    }
}

/// Counters partitioned by labels.
public typealias CounterVec = MetricVec<Counter>
/// Gauges partitioned by labels.
public typealias GaugeVec = MetricVec<Gauge>
/// Histograms partitioned by labels (all children share the buckets).
public typealias HistogramVec = MetricVec<Histogram>
/// Summaries partitioned by labels (all children share objectives and window).
public typealias SummaryVec = MetricVec<Summary>

extension MetricVec where Child == Counter {
    /// Creates an unregistered counter vector.
    /// - Throws: ``MetricsError`` for invalid names, labels or unit.
    public convenience init(name: String, help: String, unit: String? = nil, labelNames: [String]) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .counter, unit: unit, labelNames: labelNames).validated()
        self.init(descriptor: descriptor) { Counter(descriptor: descriptor) }
    }
}

extension MetricVec where Child == Gauge {
    /// Creates an unregistered gauge vector.
    /// - Throws: ``MetricsError`` for invalid names, labels or unit.
    public convenience init(name: String, help: String, unit: String? = nil, labelNames: [String]) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .gauge, unit: unit, labelNames: labelNames).validated()
        self.init(descriptor: descriptor) { Gauge(descriptor: descriptor) }
    }
}

extension MetricVec where Child == Histogram {
    /// Creates an unregistered histogram vector.
    /// - Throws: ``MetricsError`` for invalid names, labels (including `le`), unit or buckets.
    public convenience init(
        name: String, help: String, unit: String? = nil, labelNames: [String], buckets: [Double] = Buckets.default
    ) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .histogram, unit: unit, labelNames: labelNames).validated()
        let bounds = try Buckets.normalized(buckets, metric: name)
        self.init(descriptor: descriptor) { Histogram(descriptor: descriptor, upperBounds: bounds) }
    }
}

extension MetricVec where Child == Summary {
    /// Creates an unregistered summary vector whose windows move with `clock`.
    /// - Throws: ``MetricsError`` for invalid names, labels (including `quantile`) or objectives.
    public convenience init<C: Clock<Duration>>(
        name: String, help: String, unit: String? = nil, labelNames: [String],
        configuration: Summary.Configuration = Summary.Configuration(), clock: C = ContinuousClock()
    ) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .summary, unit: unit, labelNames: labelNames).validated()
        let configuration = try configuration.validated(metric: name)
        let start = clock.now
        let elapsed: @Sendable () -> Duration = { start.duration(to: clock.now) }
        self.init(descriptor: descriptor) {
            Summary(descriptor: descriptor, configuration: configuration, elapsed: elapsed)
        }
    }
}
