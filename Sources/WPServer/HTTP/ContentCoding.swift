import WPText
import WPRuntime

/// Content-coding negotiation (`Accept-Encoding`, RFC 9110 §12.5.3): the one rule every
/// response of this server follows, whether the encoder compresses it or a handler sends a
/// pre-compressed body.
///
/// - Every `Accept-Encoding` field of the request counts, as one comma-separated list.
/// - A coding's weight is its `q` parameter, `1` without one. A `q` that is not a valid
///   qvalue (`0` to `1` with at most three decimals, e.g. `q=abc`, `q=2`, `q=-1`) makes that
///   item unacceptable, as if it said `q=0`.
/// - gzip (`gzip` or its alias `x-gzip`) listed more than once takes its highest weight, so the
///   order of the items never matters: `gzip;q=0, gzip` and `gzip, gzip;q=0` both accept it.
/// - When gzip is not listed, `*` decides; with neither, gzip is not accepted (the identity
///   coding is always acceptable).
///
/// ```swift
/// let body = ContentCoding.acceptsGzip(request.headers) ? snapshot.gzip : snapshot.plain
/// ```
public enum ContentCoding {
    /// Whether the request's `Accept-Encoding` fields accept gzip with a weight above zero.
    public static func acceptsGzip(_ headers: WPHTTPHeaders) -> Bool {
        acceptsGzip(headers.values(for: "Accept-Encoding"))
    }

    /// Whether `Accept-Encoding` field values accept gzip with a weight above zero.
    public static func acceptsGzip(_ values: [String]) -> Bool {
        var gzip: Double?
        var star: Double?
        for value in values {
            for item in HTTPRequestParser.commaList(value) {
                let parts = item.split(separator: ";").map { $0.trimmingSpacesAndTabs() }
                guard let coding = parts.first?.lowercased(), !coding.isEmpty else { continue }
                var weight = 1.0
                for parameter in parts.dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpacesAndTabs() }
                    guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                    weight = qvalue(pair[1]) ?? 0
                }
                if coding == "gzip" || coding == "x-gzip" { gzip = max(gzip ?? 0, weight) }
                if coding == "*" { star = max(star ?? 0, weight) }
            }
        }
        return (gzip ?? star ?? 0) > 0
    }

    /// A qvalue: `0`, `0.` and up to three digits, `1`, or `1.` and up to three zeros; `nil`
    /// for anything else.
    static func qvalue(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        if bytes.count == 1 { return first == UInt8(ascii: "1") ? 1 : 0 }
        let decimals = bytes.dropFirst(2)
        guard bytes[1] == UInt8(ascii: "."), decimals.count <= 3,
              decimals.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        if first == UInt8(ascii: "1") { return decimals.allSatisfy { $0 == UInt8(ascii: "0") } ? 1 : nil }
        return Double(text)
    }
}

extension WPHTTPRequest {
    /// Whether this request accepts a gzip-coded response (``ContentCoding/acceptsGzip(_:)-(WPHTTPHeaders)``).
    public var acceptsGzip: Bool { ContentCoding.acceptsGzip(headers) }
}
