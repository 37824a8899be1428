import Synchronization

/// A family of instruments of one kind, one child per combination of label values.
///
/// Use the typealiases ``CounterVec``, ``GaugeVec``, ``HistogramVec`` and ``SummaryVec``.
/// Children are created on first use by ``labels(_:)-(String...)`` and live until
/// ``remove(_:)-(String...)`` or ``reset()``. Safe to use from any thread: looking an existing
/// child up takes no lock, so threads updating children never wait for each other; creating or
/// removing one takes a lock shared with 1/16 of the children.
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
    let table: ChildTable
    /// The vector this one was curried from (directly or not), nil for the vector itself.
    private let root: MetricVec<Child>?
    /// Label values fixed by ``curry(_:)``, by position in `descriptor.labelNames`, ascending.
    let curried: [(index: Int, value: String)]
    /// `# HELP`/`# TYPE` lines in the text format and OpenMetrics, for direct rendering.
    private let headers: (text: [UInt8], openMetrics: [UInt8])
    /// Render plans per format for the table's version of the sorted children.
    private let plans = Mutex<(version: Int, text: RenderPlan?, openMetrics: RenderPlan?)>((-1, nil, nil))

    init(descriptor: MetricDescriptor, makeChild: @escaping @Sendable () -> Child) {
        self.descriptor = descriptor
        self.makeChild = makeChild
        self.root = nil
        self.curried = []
        let direct = Child.self == WPCounter.self || Child.self == WPGauge.self
        table = ChildTable(lineNames: direct ? Self.lineNames(descriptor) : nil)
        headers = Self.headers(descriptor)
    }

    init(curriedFrom parent: MetricVec<Child>, curried: [(index: Int, value: String)]) {
        self.descriptor = parent.descriptor
        self.makeChild = parent.makeChild
        let root = parent.root ?? parent
        self.root = root
        self.table = root.table
        self.curried = curried
        self.headers = parent.headers
    }

    private static func lineNames(_ descriptor: MetricDescriptor) -> ChildTable.LineNames {
        let text = ExpositionEncoder.names(of: descriptor.name, type: descriptor.type, openMetrics: false).sample
        let openMetrics = ExpositionEncoder.names(of: descriptor.name, type: descriptor.type, openMetrics: true).sample
        return ChildTable.LineNames(text: Array(text.utf8), openMetrics: openMetrics == text ? nil : Array(openMetrics.utf8),
                                    labels: LabelWriter(names: descriptor.labelNames))
    }

    private static func headers(_ descriptor: MetricDescriptor) -> (text: [UInt8], openMetrics: [UInt8]) {
        guard let family = try? descriptor.makeFamily() else { return ([], []) }
        var text: [UInt8] = []
        ExpositionEncoder(format: .text).encode(family, into: &text)
        var openMetrics: [UInt8] = []
        ExpositionEncoder(format: .openMetrics).encode(family, into: &openMetrics)
        return (text, openMetrics)
    }

    /// The child for these label values, created on first use.
    ///
    /// - Parameter values: One value per label name, in declaration order (any UTF-8); on a
    ///   curried vector, one per name of ``remainingLabelNames``.
    /// - Returns: The child instrument.
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``.
    @_disfavoredOverload  // one to three values take the overloads below (Swift 6.0 finds two or three ambiguous)
    public func labels(_ values: String...) throws(MetricsError) -> Child {
        try labels(values)
    }

    /// The child for this label value (a vector with one label), created on first use; the
    /// value is looked up without building an array.
    ///
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``.
    public func labels(_ value: String) throws(MetricsError) -> Child {
        try checkCount(1)
        return child(value)
    }

    /// The child for these two label values, created on first use; the values are looked up
    /// without building an array.
    ///
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``.
    public func labels(_ first: String, _ second: String) throws(MetricsError) -> Child {
        try checkCount(2)
        return child(first, second)
    }

    /// The child for these three label values, created on first use; the values are looked up
    /// without building an array.
    ///
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``.
    public func labels(_ first: String, _ second: String, _ third: String) throws(MetricsError) -> Child {
        try checkCount(3)
        return child(first, second, third)
    }

    /// The child for these label values, created on first use.
    ///
    /// - Parameter values: One value per label name, in declaration order; on a curried
    ///   vector, one per name of ``remainingLabelNames``.
    /// - Returns: The child instrument.
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``.
    public func labels(_ values: [String]) throws(MetricsError) -> Child {
        try checkCount(values.count)
        return child(remaining: values)
    }

    @inline(__always)
    private func checkCount(_ given: Int) throws(MetricsError) {
        let expected = descriptor.labelNames.count - curried.count
        guard given == expected else {
            throw .labelCountMismatch(metric: descriptor.name, expected: expected, got: given)
        }
    }

    /// The child for values of the remaining labels, whose count the caller has checked.
    func child(remaining values: [String]) -> Child {
        if let root { return root.child(remaining: fullValues(values)) }
        let entry = table.entry(hash: ChildTable.hash(values), matches: { $0.values == values },
                                values: { values }, makeChild: makeChild)
        return unsafeDowncast(entry.child, to: Child.self)
    }

    /// The child for the one remaining label value (count checked by the caller).
    func child(_ value: String) -> Child {
        if root != nil { return child(remaining: [value]) }
        let entry = table.entry(hash: ChildTable.hash(value), matches: { $0.values.count == 1 && $0.values[0] == value },
                                values: { [value] }, makeChild: makeChild)
        return unsafeDowncast(entry.child, to: Child.self)
    }

    /// The child for the two remaining label values (count checked by the caller).
    func child(_ first: String, _ second: String) -> Child {
        if root != nil { return child(remaining: [first, second]) }
        let entry = table.entry(hash: ChildTable.hash(first, second),
                                matches: { $0.values.count == 2 && $0.values[0] == first && $0.values[1] == second },
                                values: { [first, second] }, makeChild: makeChild)
        return unsafeDowncast(entry.child, to: Child.self)
    }

    /// The child for the three remaining label values (count checked by the caller).
    func child(_ first: String, _ second: String, _ third: String) -> Child {
        if root != nil { return child(remaining: [first, second, third]) }
        let entry = table.entry(hash: ChildTable.hash(first, second, third),
                                matches: { $0.values.count == 3 && $0.values[0] == first && $0.values[1] == second
                                           && $0.values[2] == third },
                                values: { [first, second, third] }, makeChild: makeChild)
        return unsafeDowncast(entry.child, to: Child.self)
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
        return table.remove(curried.isEmpty ? values : fullValues(values))
    }

    /// Removes every child (on a curried vector: every child with its curried values).
    public func reset() {
        if root == nil {
            table.removeAll { _ in true }
        } else {
            table.removeAll { self.matchesCurried($0.values) }
        }
    }

    /// Number of children (series groups) currently present (on a curried vector: those with
    /// its curried values).
    public var count: Int {
        guard root != nil else { return table.count }
        return table.count { self.matchesCurried($0.values) }
    }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// The family with one sample per child (on a curried vector: per child with its curried
    /// values), sorted by label values.
    public func collect() -> [MetricFamily] {
        let entries = table.sorted()
        guard var family = try? descriptor.makeFamily(capacity: entries.count) else { return [] }
        for entry in entries where curried.isEmpty || matchesCurried(entry.values) {
            try? family.append(Sample(labelValues: entry.values, value: entry.child.sampleValue))
        }
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

/// The lines of a counter or gauge vector without their values: every child's `name{labels} `
/// back to back, where each ends, and the instruments to read the values from.
struct RenderPlan: Sendable {
    var prefixes: [UInt8] = []
    var ends: [Int] = []
    var values: [any ScalarMetric] = []
}

/// A collector whose families come out of ``Collector/collect()`` with their samples already
/// in order, so the registry does not sort them again.
protocol PresortedCollector {}

/// A collector the registry renders without building ``MetricFamily`` values: one family named
/// `renderedFamilyName`, written exactly as ``ExpositionEncoder`` writes what `collect()` returns.
protocol DirectlyRendered: Collector {
    /// Whether this collector renders directly (a vector of counters or gauges).
    var rendersDirectly: Bool { get }
    /// The name of its one family.
    var renderedFamilyName: String { get }
    /// Appends the family (without the OpenMetrics `# EOF`).
    func render(format: ExpositionFormat, into bytes: inout [UInt8])
}

extension MetricVec: PresortedCollector, DirectlyRendered {
    var rendersDirectly: Bool { table.lineNames != nil }

    var renderedFamilyName: String { descriptor.name }

    /// Writes the header, then one line per child: its prefix from the render plan (all the
    /// prefixes in sample order, back to back in one buffer), its current value and a newline,
    /// assembled in a stack buffer and appended with one copy.
    func render(format: ExpositionFormat, into bytes: inout [UInt8]) {
        let openMetrics = format == .openMetrics
        bytes.append(contentsOf: openMetrics ? headers.openMetrics : headers.text)
        let plan = renderPlan(openMetrics: openMetrics)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: FastLineWriter.capacity) { scratch in
            guard let line = scratch.baseAddress else { return }
            plan.prefixes.withUnsafeBufferPointer { prefixes in
                plan.ends.withUnsafeBufferPointer { ends in
                    plan.values.withUnsafeBufferPointer { values in
                        var start = 0
                        for index in 0..<values.count {
                            let end = ends[index]
                            let prefix = UnsafeBufferPointer(rebasing: prefixes[start..<end])
                            start = end
                            let value = values[index].value
                            guard prefix.count + NumberFormatting.maximumLength + 1 <= FastLineWriter.capacity,
                                  let first = prefix.baseAddress else {
                                bytes.append(contentsOf: prefix)
                                NumberFormatting.append(value, to: &bytes)
                                bytes.append(UInt8(ascii: "\n"))
                                continue
                            }
                            line.update(from: first, count: prefix.count)
                            var length = prefix.count
                            length += NumberFormatting.write(value, to: line + length)
                            line[length] = UInt8(ascii: "\n")
                            bytes.append(contentsOf: UnsafeBufferPointer(start: line, count: length + 1))
                        }
                    }
                }
            }
        }
    }

    /// The children's line prefixes in sample order, rebuilt when children were added or removed.
    private func renderPlan(openMetrics: Bool) -> RenderPlan {
        let (entries, version) = table.sortedWithVersion()
        return plans.withLock { cache in
            if cache.version != version { cache = (version, nil, nil) }
            if let plan = openMetrics ? cache.openMetrics : cache.text { return plan }
            var plan = RenderPlan()
            plan.ends.reserveCapacity(entries.count)
            plan.values.reserveCapacity(entries.count)
            for entry in entries where curried.isEmpty || matchesCurried(entry.values) {
                guard let scalar = entry.scalar else { continue }
                plan.prefixes.append(contentsOf: openMetrics ? entry.openMetricsPrefix ?? entry.textPrefix : entry.textPrefix)
                plan.ends.append(plan.prefixes.count)
                plan.values.append(scalar)
            }
            if openMetrics { cache.openMetrics = plan } else { cache.text = plan }
            return plan
        }
    }
}

/// Counters partitioned by labels.
public typealias CounterVec = MetricVec<WPCounter>
/// Gauges partitioned by labels.
public typealias GaugeVec = MetricVec<WPGauge>
/// Histograms partitioned by labels (all children share the buckets).
public typealias HistogramVec = MetricVec<WPHistogram>
/// Summaries partitioned by labels (all children share objectives and window).
public typealias SummaryVec = MetricVec<Summary>

extension MetricVec where Child == WPCounter {
    /// Creates an unregistered counter vector.
    /// - Throws: ``MetricsError`` for invalid names, labels or unit.
    public convenience init(name: String, help: String, unit: String? = nil, labelNames: [String]) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .counter, unit: unit, labelNames: labelNames).validated()
        self.init(descriptor: descriptor) { WPCounter(descriptor: descriptor) }
    }
}

extension MetricVec where Child == WPGauge {
    /// Creates an unregistered gauge vector.
    /// - Throws: ``MetricsError`` for invalid names, labels or unit.
    public convenience init(name: String, help: String, unit: String? = nil, labelNames: [String]) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .gauge, unit: unit, labelNames: labelNames).validated()
        self.init(descriptor: descriptor) { WPGauge(descriptor: descriptor) }
    }
}

extension MetricVec where Child == WPHistogram {
    /// Creates an unregistered histogram vector.
    /// - Throws: ``MetricsError`` for invalid names, labels (including `le`), unit or buckets.
    public convenience init(
        name: String, help: String, unit: String? = nil, labelNames: [String], buckets: [Double] = Buckets.default
    ) throws(MetricsError) {
        let descriptor = try MetricDescriptor(name: name, help: help, type: .histogram, unit: unit, labelNames: labelNames).validated()
        let bounds = try Buckets.normalized(buckets, metric: name)
        self.init(descriptor: descriptor) { WPHistogram(descriptor: descriptor, upperBounds: bounds) }
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
