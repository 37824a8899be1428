import WPText
import Testing
import WPTestThreads

/// Chinese (and other non-ASCII text) spelled in ASCII for NUT and SNMP clients.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct PinyinTests {
    @Test func ideographsHaveTheirTonelessMainlandReading() {
        #expect(Pinyin.syllable("机") == "ji")
        #expect(Pinyin.syllable("房") == "fang")
        #expect(Pinyin.syllable("绿") == "lv", "ü is written v")
        #expect(Pinyin.syllable("女") == "nv")
        #expect(Pinyin.syllable("一") == "yi", "the first ideograph of the block")
        #expect(Pinyin.syllable("㐀") == "qiu", "Extension A's first")
        #expect(Pinyin.syllable("重") == "zhong", "a 多音字 gets its most customary reading")
        #expect(Pinyin.syllable("A") == nil)
        #expect(Pinyin.syllable("\u{4DC0}") == nil, "a hexagram symbol between the two blocks")
        #expect(Pinyin.syllable("\u{20000}") == nil, "beyond the table")
        #expect(Pinyin.syllable("ア") == nil)
    }

    /// Every ideograph of the original Unified Ideographs block (U+4E00–U+9FA5, GB 2312 and
    /// GBK's ideographs among them) has a reading but ten rare ones Unihan gives none.
    @Test func nearlyEveryUnifiedIdeographHasAReading() {
        let missing = (0x4E00...0x9FA5).filter { Unicode.Scalar($0).flatMap(Pinyin.syllable) == nil }
        #expect(missing.count == 10, "\(missing.count) without a reading")
        let syllables = Set((0x4E00...0x9FA5).compactMap { Unicode.Scalar($0).flatMap(Pinyin.syllable) })
        #expect(syllables.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) } })
        #expect(syllables.count > 390, "Mandarin has about 400 toneless syllables: \(syllables.count)")
    }

    @Test func runsOfIdeographsAreJoinedAndSetApartFromLettersAndDigits() {
        #expect(ASCIIText.transliterated("机房 A") == "jifang A")
        #expect(ASCIIText.transliterated("UPS机房2") == "UPS jifang 2")
        #expect(ASCIIText.transliterated("二楼-机柜3") == "erlou-jigui 3")
        #expect(ASCIIText.transliterated("市电异常") == "shidianyichang")
    }

    @Test func fullWidthFormsPunctuationAndLatinLettersBecomeASCII() {
        #expect(ASCIIText.transliterated("Ａ１（测试）") == "A1(ceshi)")
        #expect(ASCIIText.transliterated("一号，二号。三号、四号") == "yihao,erhao.sanhao,sihao")
        #expect(ASCIIText.transliterated("“主机”【B区】《手册》…") == "\"zhuji\"[B qu]<shouce>...")
        #expect(ASCIIText.transliterated("机房\u{3000}B") == "jifang B")
        #expect(ASCIIText.transliterated("Zürich Straße") == "Zurich Strasse")
        #expect(ASCIIText.transliterated("Zu\u{308}rich") == "Zurich", "a combining mark is dropped")
    }

    @Test func charactersWithoutASpellingBecomeTheGivenOne() {
        #expect(ASCIIText.transliterated("UPS 😀 ア") == "UPS ? ?")
        #expect(ASCIIText.transliterated("UPS 😀", unknown: "_") == "UPS _")
        #expect(ASCIIText.transliterated("\u{FFFD}x") == "?x")
        let ascii = "plain ASCII text, unchanged: ~!@#$%^&*()"
        #expect(ASCIIText.transliterated(ascii) == ascii)
        let hostile = String(repeating: "机房😀\u{202E}", count: 2_000)
        #expect(ASCIIText.transliterated(hostile).utf8.allSatisfy { (0x20..<0x7F).contains($0) })
    }
}
