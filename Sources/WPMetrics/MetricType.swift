/// The kind of a metric family, as written in `# TYPE` lines.
///
/// `info` and `stateSet` are OpenMetrics types; in the text format 0.0.4 they are exposed as
/// gauges (`name_info` with value 1, and one 0/1 series per state). `unknown` is written as
/// `untyped` in the text format.
public enum MetricType: String, Sendable, Hashable, CaseIterable {
    case counter
    case gauge
    case histogram
    case summary
    case info
    case stateSet = "stateset"
    case unknown

    /// The word used in a text format 0.0.4 `# TYPE` line.
    public var textFormatName: String {
        switch self {
        case .counter: return "counter"
        case .gauge, .info, .stateSet: return "gauge"
        case .histogram: return "histogram"
        case .summary: return "summary"
        case .unknown: return "untyped"
        }
    }

    /// Label names the type uses itself and that users therefore cannot declare.
    var reservedLabelNames: Set<String> {
        switch self {
        case .histogram: return ["le"]
        case .summary: return ["quantile"]
        default: return []
        }
    }
}
