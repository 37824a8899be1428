import WPLogging

/// Content negotiation for gzip on `/metrics`.
///
/// The handler appends a gzip member for the per-scrape part (made with
/// `MetricsSnapshot.gzipMember(of:)`) after the snapshot's pre-built member: concatenated
/// members are one valid gzip stream (RFC 1952 §2.2), which Prometheus, curl and Python's
/// `gzip` decode as the concatenation of the parts.
package enum GzipNegotiation {
    /// Whether an `Accept-Encoding` header value accepts gzip (`gzip` or `*` with q > 0).
    package static func isAccepted(_ header: String?) -> Bool {
        guard let header else { return false }
        var accepted = false
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first?.trimmingBlanks().lowercased() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingBlanks().lowercased() == "q" {
                    quality = Double(pair[1].trimmingBlanks()) ?? 0
                }
            }
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { accepted = quality > 0 }
        }
        return accepted
    }
}
