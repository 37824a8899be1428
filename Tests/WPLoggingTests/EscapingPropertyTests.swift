import Foundation
import Testing
import WPTestThreads
import WPTestSupport
import WPLogging

/// Deterministic pseudo-random strings (fixed seed) rich in control characters, quotes,
/// backslashes, line separators and non-ASCII text, pushed through both encoders.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EscapingPropertyTests {
    struct Generator {
        var random: SplitMix64

        init(seed: UInt64 = 1) { random = SplitMix64(seed: seed) }

        mutating func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }

        mutating func string() -> String {
            let pool: [Unicode.Scalar] = ["\n", "\r", "\t", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}",
                                          "\u{2028}", "\u{2029}", "\"", "\\", "=", " ", "a", "Z", "9", "é", "中", "😀"]
            var scalars = String.UnicodeScalarView()
            for _ in 0..<next(24) {
                if next(4) == 0, let random = Unicode.Scalar(UInt32(next(0x3000))) {
                    scalars.append(random)
                } else {
                    scalars.append(pool[next(pool.count)])
                }
            }
            return String(scalars)
        }
    }

    @Test func jsonLinesAreOneLineAndRoundTripExactly() throws {
        var generator = Generator()
        let encoder = JSONLogEncoder()
        for _ in 0..<500 {
            let message = generator.string(), key = generator.string(), value = generator.string()
            let line = encoder.encodedLine(.make(message: message, logger: value, fields: ["k" + key: .string(value)]))
            #expect(line.utf8.filter { $0 < 0x20 } == [0x0A])
            #expect(!line.contains("\u{2028}") && !line.contains("\u{85}"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["message"] as? String == message)
            #expect(object["logger"] as? String == value)
            #expect(object["k" + key] as? String == value)
        }
    }

    @Test func consoleLinesAreOneLineWithoutRawControlCharacters() {
        var generator = Generator(seed: 42)
        let encoder = ConsoleLogEncoder()
        for _ in 0..<500 {
            let text = generator.string()
            let line = encoder.encodedLine(.make(message: text, logger: text, fields: [text: .string(text)]))
            #expect(line.utf8.filter { $0 < 0x20 || $0 == 0x7F } == [0x0A])
            #expect(line.unicodeScalars.allSatisfy { !(0x80...0x9F).contains($0.value) && $0 != "\u{2028}" && $0 != "\u{2029}" })
        }
    }
}
