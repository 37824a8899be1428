/// A fixed set of labels exposed as one `<name>_info` series with value 1 (build versions,
/// device models). An OpenMetrics `info` family; a gauge in the text format.
///
/// ```swift
/// let build = try Info.build(namespace: "myservice", version: "1.4.0", revision: "abc123")
/// try registry.register(build)   // myservice_build_info{revision="abc123",version="1.4.0"} 1
/// ```
public final class Info: Collector {
    /// The family descriptor (name without `_info`).
    public let descriptor: MetricDescriptor
    /// Label values in the order of the descriptor's label names.
    public let labelValues: [String]

    /// Creates an info metric.
    ///
    /// - Parameters:
    ///   - name: Family name; a trailing `_info` is dropped (it is added on output).
    ///   - help: Help text.
    ///   - labels: The information, as label name → value; rendered sorted by name.
    /// - Throws: ``MetricsError`` for invalid names.
    public init(name: String, help: String, labels: [String: String]) throws(MetricsError) {
        let base = name.hasSuffix("_info") ? String(name.dropLast(5)) : name
        let pairs = labels.sorted { $0.key < $1.key }
        self.descriptor = try MetricDescriptor(name: base, help: help, type: .info, labelNames: pairs.map(\.key)).validated()
        self.labelValues = pairs.map(\.value)
    }

    /// The conventional build-info metric, `<namespace>_build_info`.
    ///
    /// - Parameters:
    ///   - namespace: Prefix, e.g. the service name.
    ///   - version: Release version.
    ///   - revision: Source revision.
    ///   - extra: Further labels (branch, toolchain, ...).
    /// - Returns: The info metric, ready to register.
    /// - Throws: ``MetricsError`` for invalid names.
    public static func build(
        namespace: String, version: String, revision: String = "", extra: [String: String] = [:]
    ) throws(MetricsError) -> Info {
        var labels = extra
        labels["version"] = version
        labels["revision"] = revision
        return try Info(name: namespace + "_build", help: "A metric with a constant '1' value labeled by version and revision.",
                        labels: labels)
    }

    /// The one family, ``descriptor``.
    public var descriptors: [MetricDescriptor] { [descriptor] }

    /// The family with its one series: the labels, value 1.
    public func collect() -> [MetricFamily] {
        guard var family = try? descriptor.makeFamily(capacity: 1),
              (try? family.append(Sample(labelValues: labelValues, value: .gauge(1)))) != nil else { return [] }
        return [family]
    }
}
