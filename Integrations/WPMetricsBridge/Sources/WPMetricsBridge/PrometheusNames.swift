/// How swift-metrics labels and dimension keys become Prometheus names.
///
/// swift-metrics labels are free text (`nio.connections`, `http-requests`); Prometheus metric
/// names match `[a-zA-Z_:][a-zA-Z0-9_:]*` and label names `[a-zA-Z_][a-zA-Z0-9_]*` (not starting
/// with `__`). Every other character becomes `_`, a leading digit gets a `_` in front, and an
/// empty name becomes `_`.
public enum PrometheusNames {
    /// `label` as a valid metric name: `nio.connections` → `nio_connections`.
    public static func metricName(_ label: String) -> String {
        sanitize(label, allowColon: true)
    }

    /// `key` as a valid label name: `http.method` → `http_method`, `__x` → `_x`.
    public static func labelName(_ key: String) -> String {
        var name = sanitize(key, allowColon: false)
        while name.hasPrefix("__") { name.removeFirst() }
        return name
    }

    /// `name` with `suffix` appended unless it already ends with it:
    /// (`requests`, `_total`) → `requests_total`; (`latency_seconds`, `_seconds`) stays.
    public static func withSuffix(_ name: String, _ suffix: String) -> String {
        name.hasSuffix(suffix) ? name : name + suffix
    }

    /// One `_` per Unicode scalar outside the allowed set, so `café` becomes `caf_`.
    private static func sanitize(_ text: String, allowColon: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let letter = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
            let digit = scalar >= "0" && scalar <= "9"
            let kept = letter || digit || scalar == "_" || (allowColon && scalar == ":")
            if scalars.isEmpty && digit { scalars.append("_") }
            scalars.append(kept ? scalar : "_")
        }
        return scalars.isEmpty ? "_" : String(scalars)
    }
}
