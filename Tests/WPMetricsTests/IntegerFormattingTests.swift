import Testing
import WPTestThreads
import WPTestSupport
@testable import WPMetrics

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct IntegerFormattingTests {
    @Test func writesEveryDigitCountExactly() {
        var values: [UInt64] = [0, 1, 9, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 10
        for _ in 1...19 {
            values += [power - 1, power, power + 1]
            if power > UInt64.max / 10 { break }
            power *= 10
        }
        var generator = SplitMix64(seed: 3)
        for _ in 0..<10_000 { values.append(generator.next() >> (generator.next() % 64)) }
        for value in values {
            var bytes: [UInt8] = []
            NumberFormatting.appendUnsigned(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
        }
    }
}
