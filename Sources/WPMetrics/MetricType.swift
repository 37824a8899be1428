/// The kind of a metric family, as written in `# TYPE` lines.
///
/// `info` and `stateSet` are OpenMetrics types; in the text format 0.0.4 they are exposed as
/// gauges (`name_info` with value 1, and one 0/1 series per state). `unknown` is written as
/// `untyped` in the text format.
public enum MetricType: String, Sendable, Hashable, CaseIterable {
    /// A value that only goes up (`counter`).
    case counter
    /// A value that goes up and down (`gauge`).
    case gauge
    /// Observations counted in buckets, with their count and sum (`histogram`).
    case histogram
    /// Observations as quantiles over a sliding window, with their count and sum (`summary`).
    case summary
    /// Labels exposed as one `_info` series with value 1 (OpenMetrics `info`).
    case info
    /// Named states, each true or false (OpenMetrics `stateset`).
    case stateSet = "stateset"
    /// A value of no known kind (`unknown`, `untyped` in the text format).
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
