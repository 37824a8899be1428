import Testing
import WPTestThreads
import WPTestSupport
import WPMetrics

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NumberFormattingTests {
    // Expected strings are what Go's strconv.FormatFloat(v, 'g', -1, 64) prints.
    @Test(arguments: [
        (90.0, "90"), (0.0, "0"), (-0.0, "-0"), (1.0, "1"), (-1.0, "-1"), (0.1, "0.1"), (0.5, "0.5"),
        (1.5e-7, "1.5e-07"), (1e-5, "1e-05"), (0.0001, "0.0001"), (0.00012345, "0.00012345"),
        (123456.0, "123456"), (999999.0, "999999"), (1e6, "1e+06"), (1234567.0, "1.234567e+06"),
        (123456.7, "123456.7"), (1e21, "1e+21"), (1e100, "1e+100"), (-42.5, "-42.5"),
        (0.30000000000000004, "0.30000000000000004"), (9007199254740992.0, "9.007199254740992e+15"),
        (1.7976931348623157e308, "1.7976931348623157e+308"), (Double.leastNonzeroMagnitude, "5e-324"), (2.5e-300, "2.5e-300"),
        (3600.25, "3600.25"), (1700000000.5, "1.7000000005e+09"), (100.0, "100"), (12.0, "12"),
        (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"),
    ])
    func formatsLikeGo(value: Double, expected: String) {
        #expect(NumberFormatting.format(value) == expected)
    }

    @Test func everyFormattedValueRoundTrips() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let text = NumberFormatting.format(value)
            #expect(Double(text) == value, "\(value) formatted as \(text)")
            #expect(!text.hasSuffix(".0"))
        }
        for exponent in -30...30 {
            let value = 1.25 * pow10(exponent)
            #expect(Double(NumberFormatting.format(value)) == value)
        }
    }

    @Test func metricRangeValuesAreShortestAndExact() {
        var generator = SplitMix64(seed: 7)
        var values: [Double] = []
        for _ in 0..<50_000 {
            let exponent = Double(Int(generator.next() % 20)) - 5
            let fraction = Double(generator.next() % 1_000_000_007) / 1_000_000_007
            values.append((1 + fraction * 9) * pow10(Int(exponent)))
        }
        for device in 0..<1000 {
            for gauge in 0..<30 { values.append(200 + Double(device) / 10 + Double(gauge) * 0.01) }
        }
        values += [0.1, 0.2, 0.3, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 0.5, 0.25, 0.125, 1e-5, 0.00001234, 999999999999999.9]
        for value in values {
            let text = NumberFormatting.format(value)
            #expect(Double(text) == value, "\(value) formatted as \(text)")
            #expect(significantDigits(text) == significantDigits(value.description), "\(value): \(text) vs \(value.description)")
        }
    }

    private func significantDigits(_ text: String) -> Int {
        let mantissa = text.split(separator: "e").first ?? ""
        let digits = mantissa.filter(\.isNumber).drop(while: { $0 == "0" })
        return digits.reversed().drop(while: { $0 == "0" }).count
    }

    @Test func appendsToExistingBytes() {
        var bytes = Array("x=".utf8)
        NumberFormatting.append(2.5, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x=2.5")
    }

    private func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<abs(exponent) { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }
}

