/// An immutable-by-default description of one metric family and its series: the value type
/// collectors produce and encoders render.
///
/// A family has one name, help text, type, optional OpenMetrics unit and one list of label
/// names shared by all its samples. The initializer validates names once; ``append(_:)``
/// validates each sample (label count, value kind, histogram consistency), so an encoder never
/// sees an inconsistent family.
///
/// WPCounter families are named as in the text format, usually with `_total`
/// (`requests_total`); the OpenMetrics encoder strips `_total` from the family name and keeps
/// it on the sample. Info families are named without `_info` (`build` renders `build_info`).
/// State-set families carry the state label (named like the family) as their last label.
///
/// ```swift
/// var family = try MetricFamily(name: "ups_load_watts", help: "Active power.", type: .gauge,
///                               labelNames: ["device_id"])
/// try family.append(Sample(labelValues: ["7"], value: .gauge(230.5)))
/// let bytes = ExpositionEncoder(format: .text).encode([family])
/// ```
public struct MetricFamily: Sendable, Equatable {
    /// The family name (see the type discussion for counters and info).
    public let name: String
    /// Help text; escaped by the encoders.
    public let help: String
    /// The family type.
    public let type: MetricType
    /// OpenMetrics unit (`seconds`, `bytes`, ...), or nil.
    public let unit: String?
    /// Label names shared by all samples.
    public let labelNames: [String]
    /// The series, in the order they will be rendered (see ``sortSamples()``).
    public private(set) var samples: [Sample]

    /// Creates an empty family after validating its names.
    ///
    /// - Parameters:
    ///   - name: Metric name, `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    ///   - help: Help text (any UTF-8).
    ///   - type: The family type.
    ///   - unit: Optional OpenMetrics unit; the name (without `_total`) must end with `_unit`.
    ///   - labelNames: Label names, valid and unique, not reserved for the type.
    ///   - capacity: Number of samples to reserve room for.
    /// - Throws: ``MetricsError`` naming the invalid name, label or unit.
    public init(
        name: String, help: String, type: MetricType, unit: String? = nil,
        labelNames: [String] = [], capacity: Int = 0
    ) throws(MetricsError) {
        try NameValidation.validateMetricName(name)
        try NameValidation.validateLabelNames(labelNames, metric: name, reserved: type.reservedLabelNames)
        if type == .stateSet, labelNames.last != name {
            throw .invalidLabelName(name, metric: name)
        }
        if let unit, !unit.isEmpty {
            let base = type == .counter && name.hasSuffix("_total") ? String(name.dropLast(6)) : name
            guard NameValidation.isValidLabelName(unit), base.hasSuffix("_" + unit) else {
                throw .invalidUnit(unit: unit, metric: name)
            }
        }
        self.name = name
        self.help = help
        self.type = type
        self.unit = unit?.isEmpty == true ? nil : unit
        self.labelNames = labelNames
        self.samples = []
        self.samples.reserveCapacity(capacity)
    }

    /// Appends one series after checking it fits the family.
    ///
    /// - Parameter sample: Label values (one per label name) and a value of the family's kind.
    /// - Throws: ``MetricsError/labelCountMismatch(metric:expected:got:)``,
    ///   ``MetricsError/valueKindMismatch(metric:expected:)``,
    ///   ``MetricsError/negativeCounterIncrement(metric:amount:)`` or
    ///   ``MetricsError/invalidBuckets(metric:reason:)``.
    public mutating func append(_ sample: Sample) throws(MetricsError) {
        guard sample.labelValues.count == labelNames.count else {
            throw .labelCountMismatch(metric: name, expected: labelNames.count, got: sample.labelValues.count)
        }
        try check(sample.value)
        samples.append(sample)
    }

    /// Appends one gauge-like or counter series (convenience for the common case).
    ///
    /// - Parameters:
    ///   - labelValues: One value per label name.
    ///   - value: The number; wrapped as `.counter` for counter families, `.gauge` otherwise.
    /// - Throws: As ``append(_:)``.
    public mutating func append(labelValues: [String], value: Double) throws(MetricsError) {
        try append(Sample(labelValues: labelValues, value: type == .counter ? .counter(value) : .gauge(value)))
    }

    /// Sorts the samples by label values (element by element), making output deterministic.
    public mutating func sortSamples() {
        samples.sort { lhs, rhs in
            for (left, right) in zip(lhs.labelValues, rhs.labelValues) where left != right {
                return left < right
            }
            return false
        }
    }

    /// Reserves room for `count` samples.
    public mutating func reserveCapacity(_ count: Int) {
        samples.reserveCapacity(count)
    }

    private func check(_ value: SampleValue) throws(MetricsError) {
        switch (type, value) {
        case (.gauge, .gauge), (.unknown, .gauge):
            return
        case (.info, .gauge(let number)) where number == 1:
            return
        case (.stateSet, .gauge(let number)) where number == 0 || number == 1:
            return
        case (.counter, .counter(let number)):
            guard number >= 0 else { throw .negativeCounterIncrement(metric: name, amount: number) }
        case (.histogram, .histogram(let histogram)):
            try check(histogram)
        case (.summary, .summary(let summary)):
            guard summary.quantiles.count == summary.values.count,
                  summary.quantiles.allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
                throw .invalidObjectives(metric: name, reason: "quantiles must be within 0...1, one value each")
            }
        default:
            throw .valueKindMismatch(metric: name, expected: type)
        }
    }

    private func check(_ histogram: HistogramValue) throws(MetricsError) {
        let bounds = histogram.upperBounds
        guard !bounds.isEmpty, bounds.count == histogram.cumulativeCounts.count,
              bounds.last == .infinity else {
            throw .invalidBuckets(metric: name, reason: "need one cumulative count per bound and a final +Inf bound")
        }
        for index in 1..<bounds.count where !(bounds[index - 1] < bounds[index])
            || histogram.cumulativeCounts[index - 1] > histogram.cumulativeCounts[index] {
            throw .invalidBuckets(metric: name, reason: "bounds must increase and counts must be cumulative")
        }
        guard histogram.cumulativeCounts.last == histogram.count else {
            throw .invalidBuckets(metric: name, reason: "count must equal the +Inf bucket")
        }
    }
}
