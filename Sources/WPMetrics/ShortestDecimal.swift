/// Exact shortest round-trip decimal digits for doubles in 1e-5 ..< 1e15, using 128-bit
/// integer arithmetic (no allocation, no libc).
///
/// A double `a = m × 2^-s` is written as `d × 10^-k`. For a candidate precision `p`,
/// `d = round(m × 10^k / 2^s)` is computed exactly (`m × 10^k < 2^53 × 10^22 < 2^127`), and
/// `d × 10^-k` parses back to `a` exactly when it lies within half an ulp of `a`, i.e. when the
/// exact error `|m × 10^k − d × 2^s|` is below `10^k / 2` (a quarter below when `a` is a power
/// of two and the candidate lies under it). Round-tripping is monotone in `p`, so a binary
/// search over 1…18 (17 always suffice; 18 absorbs an off-by-one exponent estimate) finds the shortest.
enum ShortestDecimal {
    private static let powersOfTen: [UInt128] = (0...38).map { exponent in
        var value: UInt128 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// The shortest `(digits, decimals)` with `Double(digits) / 10^decimals == value`.
    ///
    /// - Parameter value: A finite, positive, non-integral value in 1e-5 ..< 1e15.
    static func find(_ value: Double) -> (mantissa: UInt64, decimals: Int) {
        let significand = UInt128(value.significandBitPattern | (1 << 52))
        let shift = 52 - Int(value.exponent)  // value = significand × 2^-shift, shift >= 3 here
        let isPowerOfTwo = value.significandBitPattern == 0
        // Decimal exponent estimate; an error of one only shifts the search range.
        let exponent10 = Int((value.exponent == 0 ? 0 : Double(value.exponent)) * 0.30102999566398120)
            - (value < 1 ? 1 : 0)
        // Computed values usually need 15-17 digits: probe 15 first, then narrow the search.
        var low = 1
        var high = 18
        var best: (UInt64, Int)?
        func attempt(_ precision: Int) -> Bool {
            let decimals = max(0, min(22, precision - 1 - exponent10))
            guard let candidate = candidate(significand, shift: shift, decimals: decimals, powerOfTwo: isPowerOfTwo) else {
                return false
            }
            best = (candidate, decimals)
            return true
        }
        if attempt(15) {
            high = 14
        } else {
            low = 16
        }
        while low <= high {
            let precision = (low + high) / 2
            if attempt(precision) {
                high = precision - 1
            } else {
                low = precision + 1
            }
        }
        if let best { return best }
        // Unreachable for the documented range (17 digits always round-trip); stay exact anyway.
        let decimals = max(0, min(22, 16 - exponent10))
        return (rounded(significand, shift: shift, decimals: decimals).digits, decimals)
    }

    @inline(__always)
    private static func rounded(_ significand: UInt128, shift: Int, decimals: Int) -> (digits: UInt64, error: UInt128, up: Bool) {
        let product = significand &* powersOfTen[decimals]
        let quotient = product &>> UInt128(truncatingIfNeeded: shift)
        let one: UInt128 = 1 &<< UInt128(truncatingIfNeeded: shift)
        let remainder = product & (one &- 1)
        if remainder >= one &>> 1 {
            return (UInt64(truncatingIfNeeded: quotient &+ 1), one &- remainder, true)
        }
        return (UInt64(truncatingIfNeeded: quotient), remainder, false)
    }

    @inline(__always)
    private static func candidate(_ significand: UInt128, shift: Int, decimals: Int, powerOfTwo: Bool) -> UInt64? {
        let (digits, error, up) = rounded(significand, shift: shift, decimals: decimals)
        let scale = powersOfTen[decimals]
        // Below a power of two the gap to the next smaller double is half as wide.
        let factor: UInt128 = powerOfTwo && !up ? 4 : 2
        return error &* factor < scale ? digits : nil
    }
}
