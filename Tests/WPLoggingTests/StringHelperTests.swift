import WPText
import WPRuntime
import Foundation
import Testing
import WPTestThreads
import WPTestSupport
import WPLogging

/// The package's replacements for Foundation's trimming and `String(format:)` give exactly
/// Foundation's results (the tests may import Foundation; the libraries do not).
@Suite(.ownThreads, .timeLimit(.minutes(4))) struct StringHelperTests {
    /// Every scalar of the BMP up to U+3100 (all of Unicode's whitespace), plus a few beyond.
    static let scalars: [Unicode.Scalar] = (0...0x3100).compactMap(Unicode.Scalar.init) + ["\u{FEFF}", "\u{1F600}"]

    @Test func trimmingWhitespaceMatchesWhitespacesAndNewlines() {
        for scalar in Self.scalars {
            let text = "\(scalar)a\(scalar)b\(scalar)"
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func trimmingBlanksMatchesWhitespaces() {
        for scalar in Self.scalars {
            let text = "\(scalar)\(scalar)a \(scalar)"
            #expect(text.trimmingBlanks() == text.trimmingCharacters(in: .whitespaces), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func trimmingEdgeCases() {
        #expect("".trimmingWhitespace() == "")
        #expect(" \t\r\n ".trimmingWhitespace() == "")
        #expect(" \t\r\n ".trimmingBlanks() == "\r\n")
        #expect("x\r\n".trimmingWhitespace() == "x")
        #expect(" \u{301}x ".trimmingWhitespace() == " \u{301}x ".trimmingCharacters(in: .whitespacesAndNewlines))
        #expect("--a--".trimming { $0 == "-" } == "a")
        #expect(Substring(" a ").trimmingBlanks() == "a")
    }

    /// HTTP's optional whitespace and the formats' own: spaces and tabs only, and a value with
    /// nothing to trim comes back whole.
    @Test func trimmingSpacesAndTabsLeavesEveryOtherScalar() {
        #expect(" \tgzip;q=0.5\t ".trimmingSpacesAndTabs() == "gzip;q=0.5")
        #expect(Substring("\t  a b \t").trimmingSpacesAndTabs() == "a b")
        #expect(" \t \t".trimmingSpacesAndTabs() == "")
        #expect("".trimmingSpacesAndTabs() == "")
        #expect("\r\nx\r\n".trimmingSpacesAndTabs() == "\r\nx\r\n", "newlines are not HTTP whitespace")
        #expect("\u{A0}x\u{A0}".trimmingSpacesAndTabs() == "\u{A0}x\u{A0}", "nor is a no-break space")
        #expect("x ".trimmingSpacesAndTabs() == "x" && " x".trimmingSpacesAndTabs() == "x")
        for scalar in Self.scalars {
            let text = "\(scalar)a\(scalar)"
            let expected = scalar == " " || scalar == "\t" ? "a" : text
            #expect(text.trimmingSpacesAndTabs() == expected, "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test(arguments: [0, 1, 2, 3, 6])
    func fixedMatchesPrintf(fractionDigits: Int) {
        let values: [Double] = [0, -0.0, 0.05, 0.15, 0.25, 0.35, 1.45, 2.5, -2.5, 12.345, 229.96, 1e15 + 0.3,
                                1e300, -1e-300, .pi, .greatestFiniteMagnitude, .infinity, -.infinity, .nan]
        for value in values {
            #expect(String(fixed: value, fractionDigits: fractionDigits)
                    == String(format: "%.\(fractionDigits)f", value), "\(value)")
        }
    }

    /// The integer path (up to 3 digits below 2⁵³) against the C library on 200,000 values:
    /// binary fractions (every tie of a digit), decimals a little off them, tiny and huge ones.
    @Test func fixedMatchesPrintfOnRandomValues() {
        var random = SplitMix64(seed: 0xF1ED)
        for index in 0..<200_000 {
            let magnitude = Double(Int64.random(in: 0..<(1 << 40), using: &random))
            let value: Double
            switch index % 4 {
            case 0: value = magnitude / Double(1 << Int.random(in: 0...40, using: &random))
            case 1: value = (magnitude / 1_000).nextUp
            case 2: value = Double(bitPattern: random.next() & 0x7FFF_FFFF_FFFF_FFFF)
            default: value = Double.random(in: 0x1p-12...0x1p-9, using: &random)
            }
            let signed = index % 3 == 0 ? -value : value
            let digits = index % 4
            #expect(String(fixed: signed, fractionDigits: digits) == String(format: "%.\(digits)f", signed), "\(signed)")
        }
    }

    @Test func zeroPaddedIntegersMatchPrintf() {
        for value in [0, 1, 9, 10, 59, 255, 4096, 0xFFFF, 0x10000, 123_456_789] {
            #expect(String(value, width: 2) == String(format: "%02d", value))
            #expect(String(value, radix: 16, width: 4) == String(format: "%04x", value))
            #expect(String(value, radix: 16, width: 12) == String(format: "%012x", value))
        }
        #expect(String(UInt32(0x1F), radix: 16, width: 4) == "001f")
        #expect(String(-5, width: 3) == "-005")
    }

    /// Every scalar up to U+3100 (controls, quotes, backslash, C1, U+2028/U+2029 among them)
    /// inside a JSON string literal decodes back to the original with `JSONSerialization`.
    @Test func jsonQuotedRoundTripsEveryScalar() throws {
        let text = String(String.UnicodeScalarView(Self.scalars))
        let literal = "[" + text.jsonQuoted + "]"
        let decoded = try JSONSerialization.jsonObject(with: Data(literal.utf8)) as? [String]
        #expect(decoded == [text])
        #expect("a\"b\\c\n\u{7F}".jsonQuoted == #""a\"b\\c\n\u007f""#)
        #expect("Ünïcödé ⚡".jsonQuoted == "\"Ünïcödé ⚡\"")
    }
}
