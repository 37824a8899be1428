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
    /// The most bytes ``write(_:to:)`` produces (`-1.2345678901234567e-308` is 24).
    static let maximumLength = 32

    /// Formats `value` as Prometheus expects it in both exposition formats.
    ///
    /// - Parameter value: Any `Double`, including infinities and NaN.
    /// - Returns: The Go-style shortest round-trip text.
    public static func format(_ value: Double) -> String {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the formatted `value` to `bytes` without heap allocation.
    ///
    /// - Parameters:
    ///   - value: The value to format.
    ///   - bytes: The buffer to append UTF-8 to.
    public static func append(_ value: Double, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { scratch in
            guard let base = scratch.baseAddress else { return }
            let count = write(value, to: base)
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        }
    }

    /// Writes the formatted value at `out`, which must have room for ``maximumLength`` bytes.
    ///
    /// - Returns: The number of bytes written.
    static func write(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value.isNaN {
            out[0] = UInt8(ascii: "N"); out[1] = UInt8(ascii: "a"); out[2] = UInt8(ascii: "N")
            return 3
        }
        if value.isInfinite {
            out[0] = value < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
            out[1] = UInt8(ascii: "I"); out[2] = UInt8(ascii: "n"); out[3] = UInt8(ascii: "f")
            return 4
        }
        // Integral values below 1e6 print as plain integers in Go's shortest 'g' format.
        if value.magnitude < 1e6, value == value.rounded(.towardZero) {
            var position = 0
            if value.sign == .minus { out[0] = UInt8(ascii: "-"); position = 1 }
            return position + writeUnsigned(UInt64(value.magnitude), to: out + position)
        }
        return writeGeneral(value, to: out)
    }

    /// "00" through "99", for writing two digits per division.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// 10^0 through 10^19.
    private static let powersOfTen: [UInt64] = (0...19).map { exponent in
        var value: UInt64 = 1
        for _ in 0..<exponent { value &*= 10 }
        return value
    }

    /// Number of decimal digits of `value` (1 for 0).
    @inline(__always)
    static func digitCount(_ value: UInt64) -> Int {
        // floor(log10) from the bit length (1233 / 4096 ≈ log10(2)), corrected by one compare.
        let estimate = ((64 - value.leadingZeroBitCount) &* 1233) &>> 12
        return estimate + (value >= powersOfTen[min(estimate, 19)] ? 1 : 0) - (estimate > 19 ? 1 : 0)
    }

    /// Writes an unsigned decimal integer (at most 20 bytes); returns the count.
    static func writeUnsigned(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 10 {
            out[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            return 1
        }
        let count = digitCount(value)
        let pairs = digitPairs.utf8Start
        var rest = value
        var index = count
        while rest >= 100 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            index -= 2
            out[index] = pairs[pair]
            out[index + 1] = pairs[pair + 1]
        }
        if rest >= 10 {
            let pair = Int(truncatingIfNeeded: rest) &* 2
            out[0] = pairs[pair]
            out[1] = pairs[pair + 1]
        } else {
            out[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        return count
    }

    /// Appends an unsigned decimal integer.
    static func appendUnsigned(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { scratch in
            guard let base = scratch.baseAddress else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: writeUnsigned(value, to: base)))
        }
    }

    /// The general path. Finite values with 1e-5 <= |v| < 1e15 get the exact shortest digits
    /// from 128-bit integer arithmetic, allocation-free. Values outside that range (rare in
    /// metrics) take Swift's own shortest formatter (`description`), which allocates when the
    /// text is longer than 15 bytes.
    private static func writeGeneral(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { scratch -> Int in
            guard let digits = scratch.baseAddress else { return 0 }
            let magnitude = value.magnitude
            let negative = value.sign == .minus
            if magnitude < 1e15, magnitude >= 1e-5 {
                if magnitude == magnitude.rounded(.towardZero) {
                    let count = writeUnsigned(UInt64(magnitude), to: digits)
                    return layout(digits, count: count, decimalPoint: count, negative: negative, to: out)
                }
                // Readings with up to four decimals (230.5, 49.98): an exact floating-point check,
                // since m / 10^d is correctly rounded when both are exactly representable.
                var scale = 1.0
                for decimals in 1...4 {
                    scale *= 10
                    let mantissa = (magnitude * scale).rounded()
                    if mantissa < 9.007_199_254_740_992e15, mantissa / scale == magnitude {
                        let count = writeUnsigned(UInt64(mantissa), to: digits)
                        return layout(digits, count: count, decimalPoint: count - decimals, negative: negative, to: out)
                    }
                }
                let (mantissa, decimals) = ShortestDecimal.find(magnitude)
                let count = writeUnsigned(mantissa, to: digits)
                return layout(digits, count: count, decimalPoint: count - decimals, negative: negative, to: out)
            }
            return writeParsing(value.magnitude.description, negative: negative, digits: digits, to: out)
        }
    }

    /// Lays out significant digits Go-style. `decimalPoint` is where the point goes relative to
    /// the first digit (value = 0.d1d2… × 10^decimalPoint); leading zeros are skipped here.
    private static func layout(
        _ rawDigits: UnsafeMutablePointer<UInt8>, count rawCount: Int, decimalPoint rawPoint: Int,
        negative: Bool, to out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var significant = rawDigits
        var count = rawCount
        var decimalPoint = rawPoint
        while count > 1, significant[0] == UInt8(ascii: "0") {
            significant += 1
            count -= 1
            decimalPoint -= 1
        }
        while count > 1, significant[count - 1] == UInt8(ascii: "0") { count -= 1 }
        let exp10 = decimalPoint - 1
        var position = 0
        func put(_ byte: UInt8) {
            out[position] = byte
            position += 1
        }
        if negative { put(UInt8(ascii: "-")) }
        if exp10 < -4 || exp10 >= 6 {
            put(significant[0])
            if count > 1 {
                put(UInt8(ascii: "."))
                for offset in 1..<count { put(significant[offset]) }
            }
            put(UInt8(ascii: "e"))
            put(exp10 < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let exponent = UInt64(exp10.magnitude)
            if exponent < 10 { put(UInt8(ascii: "0")) }
            position += writeUnsigned(exponent, to: out + position)
        } else if decimalPoint <= 0 {
            put(UInt8(ascii: "0"))
            put(UInt8(ascii: "."))
            for _ in 0..<(-decimalPoint) { put(UInt8(ascii: "0")) }
            for offset in 0..<count { put(significant[offset]) }
        } else {
            for offset in 0..<decimalPoint { put(offset < count ? significant[offset] : UInt8(ascii: "0")) }
            if count > decimalPoint {
                put(UInt8(ascii: "."))
                for offset in decimalPoint..<count { put(significant[offset]) }
            }
        }
        return position
    }

    /// Re-lays out Swift's `description` ("1e-07", "1.2345e+16", "0.001") Go-style.
    private static func writeParsing(
        _ description: String, negative: Bool, digits: UnsafeMutablePointer<UInt8>, to out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var text = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var length = 0
        withUnsafeMutableBytes(of: &text) { buffer in
            for byte in description.utf8.prefix(32) {
                buffer[length] = byte
                length += 1
            }
        }
        // Parse "d.ddddde±xx" (or Swift's description elsewhere) into digits and exponent.
        var digitCount = 0
        var pointPosition = -1
        var exponent = 0
        var exponentSign = 1
        var index = 0
        var inExponent = false
        while index < length {
            let byte = withUnsafeBytes(of: &text) { $0[index] }
            if inExponent {
                if byte == UInt8(ascii: "-") { exponentSign = -1 }
                else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    exponent = exponent * 10 + Int(byte &- UInt8(ascii: "0"))
                }
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                inExponent = true
            } else if byte == UInt8(ascii: ".") {
                pointPosition = digitCount
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digitCount < 30 {
                digits[digitCount] = byte
                digitCount += 1
            }
            index += 1
        }
        if pointPosition < 0 { pointPosition = digitCount }
        return layout(digits, count: digitCount, decimalPoint: pointPosition + exponentSign * exponent,
                      negative: negative, to: out)
    }
}
