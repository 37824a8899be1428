/// Toneless Hanyu Pinyin of the CJK ideographs, and text spelled in ASCII with it: how a UPS
/// whose alias is `机房 A` is named `jifang-a` over NUT and SNMP, and how text values reach
/// clients that show ASCII only.
///
/// The readings are the Unicode Character Database's (Unihan's `kMandarin` field, the reading
/// mainland China uses first) for Extension A and the Unified Ideographs block (U+3400–U+9FFF,
/// every ideograph in common use), generated into `PinyinTable.swift` by
/// `scripts/gen-pinyin.py`. One reading per ideograph, chosen without context: a character
/// with several readings (多音字) gets its most customary one (`重` is `zhong`, `行` is `xing`).
package enum Pinyin {
    /// The toneless syllable of `scalar` (`机` → `ji`, `绿` → `lv`: ü is written `v`), or `nil`
    /// for anything that is not an ideograph of the table.
    package static func syllable(_ scalar: Unicode.Scalar) -> String? {
        guard scalar.value >= first, scalar.value <= last else { return nil }
        let offset = Int(scalar.value - first) * 2
        let index = table.withUTF8Buffer { digits in digit(digits[offset]) * 64 + digit(digits[offset + 1]) }
        return index == 0 ? nil : syllables[index - 1]
    }

    /// The value of one character of the table's alphabet (`0-9A-Za-z+/`).
    private static func digit(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a")) + 36
        case UInt8(ascii: "+"): 62
        default: 63
        }
    }
}

/// Text spelled in printable ASCII, for clients that show nothing else (NUT's and SNMP's
/// DisplayString values, NUT names). The original stays where clients take UTF-8 (`/metrics`,
/// `/health`).
///
/// - A run of ideographs becomes its pinyin syllables, joined (`机房` → `jifang`), set apart by
///   a space from a letter or digit right before or after it (`UPS机房2` → `UPS jifang 2`).
/// - Full-width forms become their ASCII letters, digits and signs (`Ａ１（` → `A1(`), the
///   ideographic space a space, and the common Chinese punctuation its ASCII counterpart
///   (`，。、` `“”‘’` `【】《》「」` `—…·`; `：；！？（）` are full-width forms).
/// - Latin letters with diacritics lose them (`Zürich` → `Zurich`, `ß` → `ss`; the Latin-1
///   letters and the combining marks U+0300–U+036F).
/// - Every other character outside printable ASCII becomes `unknown`: control characters and
///   the bidirectional formatting ones too (those ``DisplayText`` replaces), so a raw ESC or an
///   override never reaches a client through the ASCII text.
package enum ASCIIText {
    /// `text` in printable ASCII (see the type's rules), each character without an ASCII
    /// spelling as `unknown`.
    package static func transliterated(_ text: String, unknown: Character = "?") -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var inIdeographs = false
        for scalar in text.unicodeScalars {
            if let syllable = Pinyin.syllable(scalar) {
                if !inIdeographs, let last = out.last, last.isASCII, last.isLetter || last.isNumber { out.append(" ") }
                out += syllable
                inIdeographs = true
                continue
            }
            let spelled = spelling(scalar) ?? String(unknown)
            if inIdeographs, let first = spelled.first, first.isASCII, first.isLetter || first.isNumber { out.append(" ") }
            out += spelled
            inIdeographs = false
        }
        return out
    }

    /// The ASCII spelling of a character that is not an ideograph, or `nil`.
    private static func spelling(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x20..<0x7F: String(Character(scalar))
        case 0xFF01...0xFF5E: Unicode.Scalar(scalar.value - 0xFEE0).map { String(Character($0)) }
        case 0xC0...0xFF: latin1[Int(scalar.value - 0xC0)]
        case 0x0300...0x036F: ""
        case 0x3000: " "
        case 0x3001: ","
        case 0x3002, 0x00B7, 0x30FB: "."
        case 0x2014, 0x2013, 0x2015, 0x2212: "-"
        case 0x2018, 0x2019: "'"
        case 0x201C, 0x201D, 0x300C, 0x300D, 0x300E, 0x300F: "\""
        case 0x3010, 0x3014, 0x3016: "["
        case 0x3011, 0x3015, 0x3017: "]"
        case 0x300A, 0x3008: "<"
        case 0x300B, 0x3009: ">"
        case 0x2026: "..."
        default: nil
        }
    }

    /// U+00C0–U+00FF without their diacritics (`×` and `÷` as `x` and `/`).
    private static let latin1: [String] = [
        "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
        "D", "N", "O", "O", "O", "O", "O", "x", "O", "U", "U", "U", "U", "Y", "TH", "ss",
        "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
        "d", "n", "o", "o", "o", "o", "o", "/", "o", "u", "u", "u", "u", "y", "th", "y",
    ]
}
