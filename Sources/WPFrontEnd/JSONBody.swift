package import FoundationEssentials

/// The one JSON encoding of what the exporter's front ends serve and send (`/health`, the status
/// pages' JSON, notification bodies, MQTT payloads, the build information): keys sorted, so
/// equal values give equal bytes, and `/` not escaped.
package enum JSONBody {
    /// `value` as JSON, or `nil` when it cannot be encoded (a non-finite number).
    package static func encoded(_ value: some Encodable) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try? encoder.encode(value)
    }

    /// `value` as JSON bytes, `fallback` when it cannot be encoded.
    package static func bytes(_ value: some Encodable, else fallback: String = "{}") -> [UInt8] {
        encoded(value).map(Array.init) ?? Array(fallback.utf8)
    }
}
