/// A source of families that arrive already encoded in the exposition formats: another
/// component's pre-rendered exposition (the WinPower exporter's snapshot, a sidecar's text),
/// put into a registry next to its own instruments with ``MetricRegistry/register(encoded:)``.
///
/// The collector owns every family name starting with ``namePrefix``: the registry refuses an
/// instrument or collector with such a name, and an encoded collector whose prefix overlaps a
/// registered name or another encoded collector's prefix, so no family can appear twice.
/// ``MetricRegistry/render(format:)`` writes the encoded block where its prefix sorts, and the
/// one OpenMetrics `# EOF` after everything; ``MetricRegistry/collect()`` leaves it out (there
/// are no ``MetricFamily`` values to return).
///
/// ```swift
/// final class Sidecar: EncodedCollector {
///     let namePrefix = "sidecar_"
///     func encode(format: ExpositionFormat, into bytes: inout [UInt8]) {
///         bytes += Array("# TYPE sidecar_up gauge\nsidecar_up 1\n".utf8)   // same in both formats
///     }
/// }
/// try registry.register(encoded: Sidecar())
/// ```
public protocol EncodedCollector: Sendable {
    /// The start of every family name this collector writes, e.g. `winpower_`.
    var namePrefix: String { get }

    /// Appends every family, complete (metadata and samples), in `format`, each name starting
    /// with ``namePrefix``, without OpenMetrics' `# EOF`. Called at every render; it must not
    /// block nor call back into the registry.
    func encode(format: ExpositionFormat, into bytes: inout [UInt8])
}
