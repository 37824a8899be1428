import Testing
import WPTestThreads
import WPNUT

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NUTNamesTests {
    @Test func aliasesBecomeReadableUniqueNames() {
        let names = NUTNames.assign([(id: "1", alias: "Server Room #2"), (id: "2", alias: "Server Room #2"),
                                     (id: "3", alias: "Ünïcode UPS"), (id: "4", alias: nil), (id: "5", alias: "   "),
                                     (id: "6", alias: "ups"), (id: "7", alias: "Rack.A_1")])
        #expect(names["1"] == "server-room-2")
        #expect(names["2"] == "server-room-2-2")
        #expect(names["3"] == "unicode-ups", "Latin letters lose their diacritics")
        #expect(names["4"] == "ups")
        #expect(names["5"] == "ups-2")
        #expect(names["6"] == "ups-3")
        #expect(names["7"] == "rack.a_1")
        for name in names.values { #expect(NUTNames.isValid(name), "\(name)") }
    }

    /// Chinese aliases are named in pinyin (as ``ASCIIText`` spells them), not `ups-2`.
    @Test func chineseAliasesBecomePinyinNames() {
        let names = NUTNames.assign([(id: "1", alias: "机房 A"), (id: "2", alias: "机房A"), (id: "3", alias: "二楼（UPS１）"),
                                     (id: "4", alias: "机房 A"), (id: "5", alias: "😀"), (id: "6", alias: "配电室—主机")])
        #expect(names["1"] == "jifang-a")
        #expect(names["2"] == "jifang-a-2", "a letter right after the ideographs is set apart, then the names kept unique")
        #expect(names["3"] == "erlou-ups1")
        #expect(names["4"] == "jifang-a-3")
        #expect(names["5"] == "ups", "nothing with an ASCII spelling")
        #expect(names["6"] == "peidianshi-zhuji")
        #expect(NUTNames.derived(from: String(repeating: "机房", count: 40)).utf8.count == NUTNames.maximumLength)
        for name in names.values { #expect(NUTNames.isValid(name), "\(name)") }
    }

    @Test func configuredNamesWinAndNeverMove() {
        let names = NUTNames.assign([(id: "1", alias: "ups"), (id: "2", alias: "other")], configured: ["2": "ups"])
        #expect(names == ["1": "ups-2", "2": "ups"])
    }

    @Test func validity() {
        #expect(NUTNames.isValid("ups"))
        #expect(NUTNames.isValid("rack-a.1_b"))
        #expect(!NUTNames.isValid(""))
        #expect(!NUTNames.isValid("-ups"))
        #expect(!NUTNames.isValid("two words"))
        #expect(!NUTNames.isValid("ups@host"))
        #expect(!NUTNames.isValid(String(repeating: "a", count: 65)))
    }
}

/// The tokenizer, case by case as upsd 2.8.0 splits lines (its transcripts).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NUTLineTests {
    static func words(_ text: String) -> [String]? { NUTLine.words(Array(text.utf8)) }

    @Test func wordsQuotesAndEscapes() {
        #expect(Self.words("GET VAR ups battery.charge") == ["GET", "VAR", "ups", "battery.charge"])
        #expect(Self.words("  LIST   UPS  ") == ["LIST", "UPS"])
        #expect(Self.words("USERNAME \"with space\"") == ["USERNAME", "with space"])
        #expect(Self.words("PASSWORD \"a\\\"b\\\\c\"") == ["PASSWORD", "a\"b\\c"])
        #expect(Self.words("PASSWORD \"\"") == ["PASSWORD", ""], "an empty quoted word is a word")
        #expect(Self.words("VER\r") == ["VER"], "CR is a blank: CRLF lines work")
        #expect(Self.words("") == [], "an empty line has no words (ERR UNKNOWN-COMMAND)")
        #expect(Self.words("G\"ET\"") == ["G\"ET\""], "a quote inside a bare word is literal")
        #expect(Self.words("GET VAR \"dum\"my x") == ["GET", "VAR", "dum", "my", "x"])
        #expect(Self.words("dum\\my") == ["dummy"], "a backslash takes the next byte outside quotes too")
        #expect(Self.words("USERNAME a=b") == ["USERNAME", "a", "=", "b"], "= is a word of its own")
        #expect(Self.words("= x") == ["=", "x"])
    }

    @Test func commentsControlBytesAndLimits() {
        #expect(Self.words("GET VAR ups ups.status#x") == ["GET", "VAR", "ups", "ups.status"])
        #expect(Self.words("# only a comment") == [])
        #expect(NUTLine.words([UInt8(ascii: "V"), 0, UInt8(ascii: "E"), UInt8(ascii: "R")]) == ["VER"], "NUL vanishes")
        #expect(NUTLine.words(Array("du".utf8) + [0xC3, 0xA9] + Array("mmy".utf8)) == ["dummy"], "non-ASCII bytes vanish")
        #expect(Self.words("\"du\tmmy\"") == ["dummy"], "a tab inside quotes vanishes")
        let long = String(repeating: "a", count: 600)
        #expect(Self.words("VER " + long) == ["VER", String(repeating: "a", count: NUTLine.maximumWordLength)], "cut at 512")
        let many = (1...40).map(String.init).joined(separator: " ")
        #expect(Self.words(many)?.count == NUTLine.maximumWords, "words past the 32nd are dropped")
        #expect(Self.words("GET VAR ups \"ups.#status\"") == nil, "# inside quotes: a parse error, no words")
    }

    @Test func aQuoteLeftOpenContinuesOnTheNextLine() {
        var tokenizer = NUTLine.Tokenizer()
        #expect(tokenizer.line(Array("GET VAR \"dummy ups.status".utf8)) == .continued)
        #expect(tokenizer.line(Array("VER".utf8)) == .continued, "swallowed into the open word, newline dropped")
        #expect(tokenizer.line(Array("\" x".utf8)) == .words(["GET", "VAR", "dummy ups.statusVER", "x"]))
        #expect(tokenizer.line(Array("VER".utf8)) == .words(["VER"]), "back to normal")
        #expect(tokenizer.line(Array("ups.sta\\".utf8)) == .continued, "a final backslash continues the line")
        #expect(tokenizer.line(Array("tus".utf8)) == .words(["ups.status"]))
        #expect(tokenizer.line(Array("X \"#\"".utf8)) == .parseError)
        #expect(tokenizer.line(Array("HELP".utf8)) == .words(["HELP"]), "a parse error resets the tokenizer")
    }

    @Test func escapingForQuotedReplies() {
        #expect(NUTLine.escaped("plain text") == "plain text")
        #expect(NUTLine.escaped("say \"hi\" \\ bye") == "say \\\"hi\\\" \\\\ bye")
        #expect(NUTLine.escaped("hash#tag") == "hash\\#tag")
    }
}
