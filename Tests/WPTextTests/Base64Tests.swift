import FoundationEssentials
import Testing
import WPTestThreads
import WPText

/// Base64 written once: what basic authentication, a JWT's segments, the Pushgateway's
/// `@base64` values and a notification's signature are encoded or decoded with, against
/// Foundation's encoder as the reference.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct Base64Tests {
    @Test func encodingMatchesFoundationForEveryLength() {
        for length in 0...64 {
            // Every byte value turns up across the lengths (a multiplier prime to 256).
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: ($0 + length) * 167 + 13) }
            let reference = Data(bytes).base64EncodedString()
            #expect(Base64.encoded(bytes) == reference, "\(length) bytes")
            let url = reference.replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
            #expect(Base64.encoded(bytes, url: true) == url, "\(length) bytes, URL alphabet")
            #expect(Base64.decoded(reference) == bytes, "\(length) bytes decoded")
            #expect(Base64.decoded(url, url: true) == bytes, "\(length) bytes decoded, URL alphabet, no padding")
        }
    }

    @Test func knownValues() {
        #expect(Base64.encoded("user:pa ss".utf8) == "dXNlcjpwYSBzcw==")
        #expect(Base64.encoded([0xFB, 0xFF], url: true) == "-_8")
        #expect(Base64.encoded([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.decoded("dXNlcjpwYSBzcw") == Array("user:pa ss".utf8), "padding is optional")
    }

    @Test func malformedTextIsRefused() {
        #expect(Base64.decoded("ab$c") == nil, "outside the alphabet")
        #expect(Base64.decoded("-_8", url: false) == nil, "the URL alphabet is not the standard one")
        #expect(Base64.decoded("+/8=", url: true) == nil, "nor the other way round")
        #expect(Base64.decoded("YQ=a") == nil, "a character after padding")
        #expect(Base64.decoded("YQ===") == nil, "more than two =")
        #expect(Base64.decoded("YWJjZ") == nil && Base64.decoded("YWJjZ", url: true) == nil, "a lone character left over")
        #expect(Base64.value(of: UInt8(ascii: "=")) == nil)
        #expect(Base64.value(of: UInt8(ascii: "/")) == 63 && Base64.value(of: UInt8(ascii: "_"), url: true) == 63)
    }
}
