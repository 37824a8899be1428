import Foundation
import CZlib

/// Compresses a small buffer into one complete gzip member (RFC 1952).
///
/// The `/metrics` handler appends such a member for the per-scrape part after the snapshot's
/// pre-built member: concatenated members are one valid gzip stream (RFC 1952 §2.2), which
/// Prometheus, curl and Python's `gzip` decode as the concatenation of the parts.
enum GzipMember {
    /// - Parameter input: the bytes to compress.
    /// - Returns: the member, or nil when zlib fails (out of memory).
    static func compress(_ input: [UInt8], level: Int32 = 1) -> [UInt8]? {
        var stream = z_stream()
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        var input = input
        let produced: Int? = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(destination.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return destination.count - Int(stream.avail_out)
            }
        }
        guard let produced else { return nil }
        output.removeSubrange(produced...)
        return output
    }

    /// Whether an `Accept-Encoding` header value accepts gzip (`gzip` or `*` with q > 0).
    static func isAccepted(_ header: String?) -> Bool {
        guard let header else { return false }
        var accepted = false
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first?.trimmingCharacters(in: .whitespaces).lowercased() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" {
                    quality = Double(pair[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { accepted = quality > 0 }
        }
        return accepted
    }
}
