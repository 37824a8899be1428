#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WPPOSIX
import WPTestThreads

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct CTextTests {
    @Test func aBufferEndsAtItsFirstNul() {
        let buffer: [CChar] = [0x31, 0x32, 0x37, 0x2E, 0x30, 0, 0x39, 0x39]
        #expect(String(cBuffer: buffer) == "127.0")
    }

    @Test func aBufferWithoutNulIsReadWhole() {
        #expect(String(cBuffer: "[::1]".utf8CString.dropLast()) == "[::1]")
        #expect(String(cBuffer: [CChar]()) == "")
    }

    @Test func bytesAboveAsciiAreDecodedAsUtf8AndInvalidOnesReplaced() {
        let valid = "断电".utf8.map { CChar(bitPattern: $0) } + [0]
        #expect(String(cBuffer: valid) == "断电")
        let invalid: [CChar] = [0x61, CChar(bitPattern: 0xFF), 0x62, 0]
        #expect(String(cBuffer: invalid) == "a\u{FFFD}b")
    }

    @Test func anErrorNumberReadsAsTheCLibrarysText() {
        let refused = systemErrorText(ECONNREFUSED)
        #expect(refused == String(cString: strerror(ECONNREFUSED)))
        #expect(!refused.isEmpty && refused != "error \(ECONNREFUSED)")
        #expect(POSIXFile.message(ECONNREFUSED) == refused.lowercased())
    }
}
