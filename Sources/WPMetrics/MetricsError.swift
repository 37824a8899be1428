/// Everything WPMetrics can reject, equatable by case so tests can match exactly.
///
/// Each case names what was wrong and where; descriptions never contain credentials.
public enum MetricsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A metric or family name does not match `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    case invalidMetricName(String)
    /// A label name does not match `[a-zA-Z_][a-zA-Z0-9_]*`, starts with `__`, or is reserved
    /// for the metric type (`le` on histograms, `quantile` on summaries); or, given to a
    /// vector's `labels(_:)` by name or `curry(_:)`, is not one of the vector's label names.
    case invalidLabelName(String, metric: String)
    /// The same label name appears twice in one metric, or is given to a curried vector again.
    case duplicateLabelName(String, metric: String)
    /// `labels(...)` or a sample was given a different number of label values than names.
    case labelCountMismatch(metric: String, expected: Int, got: Int)
    /// A counter was asked to move backwards (or by NaN).
    case negativeCounterIncrement(metric: String, amount: Double)
    /// WPHistogram buckets are empty, unsorted, duplicated or NaN.
    case invalidBuckets(metric: String, reason: String)
    /// Summary objectives are outside (0, 1) or have an allowed error outside [0, 1].
    case invalidObjectives(metric: String, reason: String)
    /// A summary's age buckets or max age make no sense.
    case invalidSummaryWindow(metric: String, reason: String)
    /// An OpenMetrics unit that is invalid or not a suffix of the family name.
    case invalidUnit(unit: String, metric: String)
    /// A sample's value kind does not fit the family type (e.g. a histogram value in a gauge).
    case valueKindMismatch(metric: String, expected: MetricType)
    /// The name is already registered with the same type and help.
    case alreadyRegistered(String)
    /// The name (or an encoded collector's prefix) conflicts with what is registered; `reason` says
    /// how (`cannot register NAME: REASON`).
    case conflictingRegistration(String, reason: String)
    /// Bucket helper arguments are out of range.
    case invalidBucketParameters(String)
    /// A `/proc` file could not be parsed; names the file and what was wrong.
    case unparsableProcessFile(String, reason: String)

    /// What was rejected, on which metric, and the rule it broke.
    public var description: String {
        switch self {
        case .invalidMetricName(let name):
            return "invalid metric name \(quoted(name)): must match [a-zA-Z_:][a-zA-Z0-9_:]*"
        case .invalidLabelName(let label, let metric):
            if NameValidation.isValidLabelName(label), label != metric, label != "le", label != "quantile" {
                return "metric \(metric) has no label named \(quoted(label))"
            }
            return "invalid label name \(quoted(label)) on metric \(metric): must match [a-zA-Z_][a-zA-Z0-9_]*, must not start with __ and must not be reserved"
        case .duplicateLabelName(let label, let metric):
            return "label name \(quoted(label)) appears twice on metric \(metric) (declared twice, or already curried)"
        case .labelCountMismatch(let metric, let expected, let got):
            return "metric \(metric) has \(expected) label name(s) but was given \(got) label value(s)"
        case .negativeCounterIncrement(let metric, let amount):
            return "counter \(metric) cannot be increased by \(amount): counters only go up"
        case .invalidBuckets(let metric, let reason):
            return "invalid histogram buckets for \(metric): \(reason)"
        case .invalidObjectives(let metric, let reason):
            return "invalid summary objectives for \(metric): \(reason)"
        case .invalidSummaryWindow(let metric, let reason):
            return "invalid summary window for \(metric): \(reason)"
        case .invalidUnit(let unit, let metric):
            return "invalid unit \(quoted(unit)) for metric \(metric): the name must end with _\(unit)"
        case .valueKindMismatch(let metric, let expected):
            return "metric \(metric) is a \(expected.rawValue) but was given a value of another kind"
        case .alreadyRegistered(let name):
            return "a metric named \(name) is already registered"
        case .conflictingRegistration(let name, let reason):
            return "cannot register \(name): \(reason)"
        case .invalidBucketParameters(let reason):
            return "invalid bucket parameters: \(reason)"
        case .unparsableProcessFile(let file, let reason):
            return "cannot parse \(file): \(reason)"
        }
    }

    private func quoted(_ text: String) -> String {
        text.debugDescription
    }
}
