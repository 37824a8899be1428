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
    /// The children, shared by a vector and the vectors curried from it.
    let store: ChildStore<Child>
    /// Label values fixed by ``curry(_:)``, by position in `descriptor.labelNames`, ascending.
    let curried: [(index: Int, value: String)]

    init(descriptor: MetricDescriptor, makeChild: @escaping @Sendable () -> Child) {
        self.descriptor = descriptor
        self.store = ChildStore(makeChild: makeChild)
        self.curried = []
    }

    init(curriedFrom parent: MetricVec<Child>, curried: [(index: Int, value: String)]) {
        self.descriptor = parent.descriptor
        self.store = parent.store
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
        store.child(curried.isEmpty ? values : fullValues(values))
    }

    /// The child for values of the remaining labels given separately (``CheckedLabels1``,
    /// ``CheckedLabels2``, ``CheckedLabels3``): `key` holds them inline, so an existing child of
    /// an uncurried vector is found without building an array.
    func child(remaining key: LabelKey, _ values: () -> [String]) -> Child {
        curried.isEmpty ? store.child(key: key, values: values) : store.child(fullValues(values()))
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
        return store.remove(curried.isEmpty ? values : fullValues(values))
    }

    /// Removes every child (on a curried vector: every child with its curried values).
    public func reset() {
        store.removeAll(where: matchesCurried)
    }

    /// Number of children (series groups) currently present (on a curried vector: those with
    /// its curried values).
    public var count: Int {
        curried.isEmpty ? store.count : store.snapshot().count { matchesCurried($0.0) }
    }

    public var descriptors: [MetricDescriptor] { [descriptor] }

    public func collect() -> [MetricFamily] {
        let current = store.snapshot()
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

/// The children of a vector, keyed by their full label values.
final class ChildStore<Child: SampledMetric>: Sendable {
    private let makeChild: @Sendable () -> Child
    private let children = Mutex<[LabelKey: (values: [String], child: Child)]>([:])

    init(makeChild: @escaping @Sendable () -> Child) {
        self.makeChild = makeChild
    }

    func child(_ values: [String]) -> Child {
        child(key: LabelKey(values)) { values }
    }

    /// The child for `key`, created with the label values `values()` on first use.
    func child(key: LabelKey, values: () -> [String]) -> Child {
        children.withLock { children in
            if let entry = children[key] { return entry.child }
            let child = makeChild()
            children[key] = (values(), child)
            return child
        }
    }

    func remove(_ values: [String]) -> Bool {
        children.withLock { $0.removeValue(forKey: LabelKey(values)) != nil }
    }

    func removeAll(where matches: ([String]) -> Bool) {
        children.withLock { children in children = children.filter { !matches($0.value.values) } }
    }

    var count: Int { children.withLock { $0.count } }

    func snapshot() -> [([String], Child)] {
        children.withLock { $0.values.map { ($0.values, $0.child) } }
    }
}

/// A child's label values as a dictionary key. Up to three values are held inline, so looking a
/// child up by separate values (``CheckedLabels3``) builds no array. Always made by
/// ``init(_:)`` or with the case of the right count, so equal values give equal keys.
enum LabelKey: Hashable, Sendable {
    case none
    case one(String)
    case two(String, String)
    case three(String, String, String)
    case many([String])

    init(_ values: [String]) {
        switch values.count {
        case 0: self = .none
        case 1: self = .one(values[0])
        case 2: self = .two(values[0], values[1])
        case 3: self = .three(values[0], values[1], values[2])
        default: self = .many(values)
        }
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
