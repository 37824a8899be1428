import WPMetrics

/// A label added to every series a collector exports, such as `server="building-a"` in a
/// multi-server exporter.
public struct SeriesLabel: Sendable, Equatable {
    /// A valid Prometheus label name (the configuration validates it).
    public var name: String
    /// Any text; escaped when rendered.
    public var value: String

    /// Creates the label `name="value"`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `name="value",name="value"` as the text format and OpenMetrics write a label set
    /// (backslash, double quote and newline escaped, control characters replaced by U+FFFD),
    /// without braces.
    ///
    /// - Parameter labels: the labels, in output order.
    /// - Returns: the bytes to insert after a series' `{`.
    public static func rendered(_ labels: [SeriesLabel]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, label) in labels.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: label.name.utf8)
            out.append(contentsOf: "=\"".utf8)
            Escaping.appendLabelValue(label.value, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        return out
    }
}
