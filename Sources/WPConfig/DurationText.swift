/// Reads and writes durations in the Go syntax configuration files use: `500ms`, `5s`,
/// `1m30s`, `1.5h`. Units: `ns`, `us` (`µs`), `ms`, `s`, `m`, `h`.
public enum DurationText {
    private static let units: [(String, Int64)] = [
        ("ns", 1), ("us", 1_000), ("µs", 1_000), ("ms", 1_000_000),
        ("s", 1_000_000_000), ("m", 60_000_000_000), ("h", 3_600_000_000_000),
    ]

    /// Parses a duration.
    ///
    /// - Parameter text: One or more `<number><unit>` parts, optionally signed; `0` alone is zero.
    /// - Returns: The duration, or what is wrong with the text.
    public static func parse(_ text: String) -> Result<Duration, ConfigValueError> {
        let invalid = ConfigValueError("must be a duration with a unit, e.g. 500ms, 30s, 1m30s, 1h")
        var rest = Substring(text)
        var negative = false
        if let sign = rest.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            rest = rest.dropFirst()
        }
        if rest == "0" { return .success(.zero) }
        guard !rest.isEmpty else { return .failure(invalid) }
        var total: Int64 = 0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(number.count)
            let unitText = rest.prefix { !($0.isASCII && ($0.isNumber || $0 == ".")) }
            rest = rest.dropFirst(unitText.count)
            guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, number != ".",
                  let unit = units.first(where: { $0.0 == unitText })?.1 else { return .failure(invalid) }
            let parts = number.split(separator: ".", omittingEmptySubsequences: false)
            let whole = Int64(parts[0].isEmpty ? "0" : parts[0]) ?? Int64.max
            let (scaled, overflow) = whole.multipliedReportingOverflow(by: unit)
            var part = scaled
            if parts.count == 2, !parts[1].isEmpty, let fraction = Double("0." + parts[1]) {
                part = part.addingReportingOverflow(Int64((fraction * Double(unit)).rounded())).partialValue
            }
            let (sum, sumOverflow) = total.addingReportingOverflow(part)
            guard !overflow, !sumOverflow, part >= 0 else {
                return .failure(ConfigValueError("is too long a duration"))
            }
            total = sum
        }
        let duration = Duration.nanoseconds(total)
        return .success(negative ? .zero - duration : duration)
    }

    /// Formats a duration compactly and exactly: `1h`, `1m30s`, `500ms`, `1s500ms`, `0s`.
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue
            .addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
        if nanoseconds == 0 { return "0s" }
        var text = ""
        if nanoseconds < 0 {
            text = "-"
            nanoseconds = -nanoseconds
        }
        for (name, size) in units.reversed() where name != "µs" {
            let count = nanoseconds / size
            if count > 0 {
                text += "\(count)\(name)"
                nanoseconds -= count * size
            }
        }
        return text
    }
}
