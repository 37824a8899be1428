import WPPOSIX
import WPRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two `printf` conversions the package's modules need, without `String(format:)` (which
/// FoundationEssentials does not have). Public because the command-line tool, which uses public
/// API only, prints its demo table with them; not yet stable (docs/api-stability.md).
extension String {
    /// `value` with exactly `fractionDigits` digits after the point, as `%.<n>f` writes it.
    ///
    /// Rounding, `inf` and `nan` are exactly what `String(format: "%.1f", value)` gives: up to 3
    /// digits of a value below 2⁵³ are computed in integers, the rest by the C library's
    /// `vsnprintf`.
    ///
    /// ```swift
    /// String(fixed: 2.25, fractionDigits: 1)   // "2.2"
    /// ```
    /// - Parameters:
    ///   - value: The number to write.
    ///   - fractionDigits: Digits after the decimal point, 0–17 (clamped).
    public init(fixed value: Double, fractionDigits: Int) {
        if let exact = Self.fixedExactly(value, fractionDigits: fractionDigits) {
            self = exact
            return
        }
        let format = "%.\(Swift.min(Swift.max(fractionDigits, 0), 17))f"
        let length = withVaList([value]) { vsnprintf(nil, 0, format, $0) }
        guard length > 0 else {
            self = ""
            return
        }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        _ = buffer.withUnsafeMutableBufferPointer { out in
            withVaList([value]) { vsnprintf(out.baseAddress, out.count, format, $0) }
        }
        self = String(cBuffer: buffer.prefix(Int(length)))
    }

    /// `%.<n>f` for 0–3 digits of a finite value below 2⁵³ in magnitude, computed exactly in
    /// integers (the value is `m·2ᵉ`: its product with 10ⁿ split at the binary point, rounded
    /// half to even as the C library rounds), without `vsnprintf`'s variadic call: the status
    /// pages' charts write thousands of coordinates a page. `nil` for everything else.
    private static func fixedExactly(_ value: Double, fractionDigits: Int) -> String? {
        guard (0...3).contains(fractionDigits), value.isFinite, value.magnitude < 0x1p53 else { return nil }
        let scale: UInt64 = [1, 10, 100, 1_000][fractionDigits]
        var scaled: UInt64   // |value| · 10ⁿ, rounded
        if value.magnitude < 0x1p-11 {
            scaled = 0   // below half of the last digit (10⁻³ / 2)
        } else {
            let significand = value.significandBitPattern | (value.isNormal ? 1 << 52 : 0)
            let exponent = Int(value.exponent) - 52   // |value| = significand · 2^exponent
            let product = significand &* scale          // < 2⁵³ · 1000 < 2⁶³
            if exponent >= 0 {
                scaled = product                        // |value| < 2⁵³: the exponent is 0 at most
            } else {
                let shift = UInt64(-exponent)           // ≤ 63: |value| ≥ 2⁻¹¹
                scaled = product >> shift
                let remainder = product & ((1 << shift) - 1), half = UInt64(1) << (shift - 1)
                if remainder > half || (remainder == half && scaled & 1 == 1) { scaled += 1 }
            }
        }
        var text = value.sign == .minus ? "-" : ""
        text += String(scaled / scale)
        if fractionDigits > 0 {
            let fraction = String(scaled % scale)
            text += "." + String(repeating: "0", count: fractionDigits - fraction.count) + fraction
        }
        return text
    }

    /// `seconds` as a person reads a duration: `1h05m`, `12m30s`, `45s`; `nil` for a negative,
    /// non-finite or absurd (≥ 10⁹ s) value: what the demo table and the status pages show.
    public init?(compactDuration seconds: Double) {
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return nil }
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if hours > 0 {
            self = "\(hours)h\(two(minutes))m"
        } else {
            self = minutes > 0 ? "\(minutes)m\(two(rest))s" : "\(rest)s"
        }
    }

    /// `value` in `radix` (lower-case digits), left-padded with zeros to at least `width` digits
    /// after any sign: what `%0<width>d` or `%0<width>x` writes for a value ≥ 0.
    ///
    /// ```swift
    /// String(7, radix: 16, width: 4)   // "0007"
    /// ```
    /// - Parameters:
    ///   - value: The integer to write.
    ///   - radix: The base, 2–36.
    ///   - width: The minimum number of digits.
    package init(_ value: some BinaryInteger, radix: Int = 10, width: Int) {
        let digits = String(value.magnitude, radix: radix)
        let padding = String(repeating: "0", count: Swift.max(0, width - digits.count))
        self = (value < 0 ? "-" : "") + padding + digits
    }
}
