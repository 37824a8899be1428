/// Validation of metric and label names, shared by instruments, families and the registry.
///
/// Metric names match `[a-zA-Z_:][a-zA-Z0-9_:]*`; label names match `[a-zA-Z_][a-zA-Z0-9_]*`
/// and must not start with `__` (reserved for Prometheus internals).
public enum NameValidation {
    /// Whether `name` is a valid metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`).
    ///
    /// - Parameter name: The candidate metric or family name.
    /// - Returns: `true` when Prometheus accepts the name without quoting.
    public static func isValidMetricName(_ name: String) -> Bool {
        var first = true
        for byte in name.utf8 {
            let ok = isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || (!first && isDigit(byte))
            if !ok { return false }
            first = false
        }
        return !first
    }

    /// Whether `name` is a valid, non-reserved label name.
    ///
    /// - Parameter name: The candidate label name.
    /// - Returns: `true` when it matches `[a-zA-Z_][a-zA-Z0-9_]*` and does not start with `__`.
    public static func isValidLabelName(_ name: String) -> Bool {
        if name.hasPrefix("__") { return false }
        var first = true
        for byte in name.utf8 {
            let ok = isLetter(byte) || byte == UInt8(ascii: "_") || (!first && isDigit(byte))
            if !ok { return false }
            first = false
        }
        return !first
    }

    /// Throws unless `name` is a valid metric name.
    /// - Throws: ``MetricsError/invalidMetricName(_:)``.
    public static func validateMetricName(_ name: String) throws(MetricsError) {
        guard isValidMetricName(name) else { throw .invalidMetricName(name) }
    }

    /// Throws unless every label name is valid, unique and not in `reserved`.
    ///
    /// - Parameters:
    ///   - labelNames: The label names in declaration order.
    ///   - metric: The metric they belong to, named in errors.
    ///   - reserved: Label names the metric type uses itself (`le`, `quantile`, ...).
    /// - Throws: ``MetricsError/invalidLabelName(_:metric:)`` or
    ///   ``MetricsError/duplicateLabelName(_:metric:)``.
    public static func validateLabelNames(
        _ labelNames: [String], metric: String, reserved: Set<String> = []
    ) throws(MetricsError) {
        var seen = Set<String>()
        for label in labelNames {
            guard isValidLabelName(label), !reserved.contains(label) else {
                throw .invalidLabelName(label, metric: metric)
            }
            guard seen.insert(label).inserted else { throw .duplicateLabelName(label, metric: metric) }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
