/// Formats sample values the way the Go client does (`strconv.FormatFloat(v, 'g', -1, 64)`).
///
/// The shortest representation that parses back to the same `Double`, in plain notation for
/// decimal exponents from -4 to 5 and in exponent notation (at least two exponent digits)
/// otherwise: `90`, `0.25`, `123456`, `1.5e-07`, `1e+06`, plus `+Inf`, `-Inf` and `NaN`.
///
/// ```swift
/// NumberFormatting.format(90)        // "90"
/// NumberFormatting.format(1.5e-7)    // "1.5e-07"
/// NumberFormatting.format(.infinity) // "+Inf"
/// ```
public enum NumberFormatting {
    /// Formats `value` as Prometheus expects it in both exposition formats.
    ///
    /// - Parameter value: Any `Double`, including infinities and NaN.
    /// - Returns: The Go-style shortest round-trip text.
    public static func format(_ value: Double) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the formatted `value` to `bytes` without intermediate heap allocation for
    /// integral values and for values whose shortest form fits in 15 characters.
    ///
    /// - Parameters:
    ///   - value: The value to format.
    ///   - bytes: The buffer to append UTF-8 to.
    public static func append(_ value: Double, to bytes: inout [UInt8]) {
        if value.isNaN {
            bytes.append(contentsOf: [0x4E, 0x61, 0x4E])  // NaN
            return
        }
        if value.isInfinite {
            bytes.append(value < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            bytes.append(contentsOf: [0x49, 0x6E, 0x66])  // Inf
            return
        }
        // Integral values below 1e6 print as plain integers in Go's shortest 'g' format.
        if value.magnitude < 1e6, value == value.rounded(.towardZero) {
            if value == 0 {
                if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
                bytes.append(UInt8(ascii: "0"))
                return
            }
            appendInteger(Int(value), to: &bytes)
            return
        }
        appendGeneral(value, to: &bytes)
    }

    /// Appends a signed decimal integer.
    static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendUnsigned(value.magnitude, to: &bytes)
    }

    /// Appends an unsigned decimal integer without allocating.
    static func appendUnsigned(_ value: UInt, to bytes: inout [UInt8]) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for UInt64
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { scratch in
            while rest > 0 {
                scratch[23 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                count += 1
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[(24 - count)...]))
        }
    }

    /// The general path: take Swift's shortest round-trip digits and lay them out Go-style.
    private static func appendGeneral(_ value: Double, to bytes: inout [UInt8]) {
        // Swift's description is the shortest round-trip form too, only laid out differently
        // ("1e-07", "1234567.0", "1.2345e+16"); extract digits and the decimal exponent.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 17 significant digits
        var digitCount = 0
        var pointPosition = -1  // digits before the '.'
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        let text = value.magnitude.description
        withUnsafeMutableBytes(of: &digits) { scratch in
            for byte in text.utf8 {
                if inExponent {
                    if byte == UInt8(ascii: "-") { exponentSign = -1 }
                    else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                        exponent = exponent * 10 + Int(byte - UInt8(ascii: "0"))
                    }
                } else if byte == UInt8(ascii: ".") {
                    pointPosition = digitCount
                } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    inExponent = true
                } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digitCount < 24 {
                    scratch[digitCount] = byte
                    digitCount += 1
                }
            }
            if pointPosition < 0 { pointPosition = digitCount }
            // Normalise: drop leading zeros (moving the point) and trailing zeros.
            var start = 0
            while start < digitCount - 1, scratch[start] == UInt8(ascii: "0") {
                start += 1
                pointPosition -= 1
            }
            var end = digitCount
            while end > start + 1, scratch[end - 1] == UInt8(ascii: "0") { end -= 1 }
            let significant = UnsafeRawBufferPointer(rebasing: scratch[start..<end])
            let decimalPoint = pointPosition + exponentSign * exponent  // value = 0.d1d2… × 10^dp
            let exp10 = decimalPoint - 1
            if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
            if exp10 < -4 || exp10 >= 6 {
                bytes.append(significant[0])
                if significant.count > 1 {
                    bytes.append(UInt8(ascii: "."))
                    bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: significant[1...]))
                }
                bytes.append(UInt8(ascii: "e"))
                bytes.append(exp10 < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                let magnitude = exp10.magnitude
                if magnitude < 10 { bytes.append(UInt8(ascii: "0")) }
                appendUnsigned(magnitude, to: &bytes)
            } else if decimalPoint <= 0 {
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "."))
                for _ in 0..<(-decimalPoint) { bytes.append(UInt8(ascii: "0")) }
                bytes.append(contentsOf: significant)
            } else {
                let integerDigits = min(decimalPoint, significant.count)
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: significant[0..<integerDigits]))
                for _ in integerDigits..<decimalPoint { bytes.append(UInt8(ascii: "0")) }
                if significant.count > decimalPoint {
                    bytes.append(UInt8(ascii: "."))
                    bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: significant[decimalPoint...]))
                }
            }
        }
    }
}
