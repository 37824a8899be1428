package import WPMetrics

/// Helpers for comparing exposition in tests, like client_golang's `testutil.CollectAndCompare`.
package enum MetricsAssertions {
    /// Renders only the named families of a registry, so a test can compare just what it owns.
    ///
    /// - Parameters:
    ///   - registry: The registry to collect.
    ///   - names: Family names to keep.
    ///   - format: The exposition format.
    /// - Returns: The rendering as a string.
    package static func render(_ registry: MetricRegistry, only names: Set<String>, format: ExpositionFormat = .text) -> String {
        let families = registry.collect().filter { names.contains($0.name) }
        return String(decoding: ExpositionEncoder(format: format).encode(families), as: UTF8.self)
    }
}
