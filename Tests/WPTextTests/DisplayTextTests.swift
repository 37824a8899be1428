import WPText
import Testing
import WPTestThreads

@Suite(.ownThreads, .timeLimit(.minutes(2))) struct DisplayTextTests {
    /// ESC, NUL, BEL, tab, newline, DEL, a C1 control and every bidirectional formatting
    /// character each become U+FFFD; printable text, accents and CJK stay.
    @Test func controlAndBidiCharactersAreReplacedVisibly() {
        #expect(DisplayText.sanitized("evil\u{1B}[2J\u{0}\u{7}\u{202E}spu") == "evil\u{FFFD}[2J\u{FFFD}\u{FFFD}\u{FFFD}spu")
        #expect(DisplayText.sanitized("a\tb\nc\rd\u{7F}e\u{85}f\u{9B}g") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}g")
        let bidi: [Unicode.Scalar] = ["\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}",
                                      "\u{2068}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}"]
        for scalar in bidi {
            #expect(DisplayText.sanitized("x\(Character(scalar))y") == "x\u{FFFD}y", "U+\(String(scalar.value, radix: 16))")
        }
        for kept in ["Rack A (Santak C3K)", "Büro-USV", "机房 UPS 3", "", "\u{200D}zwj", "\u{2065}", "\u{A0}nbsp"] {
            #expect(DisplayText.sanitized(kept) == kept)
        }
    }
}
