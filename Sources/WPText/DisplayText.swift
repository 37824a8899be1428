/// Text from WinPower or a configuration (aliases, models, alarm texts, error messages) made
/// safe to show: the one rule for what `/health` hands to a client that prints it on a terminal
/// or a page. (The NUT server and the SNMP agent serve ASCII only: ``ASCIIText`` spells those
/// characters, like every one without an ASCII spelling, as `?`.)
///
/// Control characters (C0 U+0000–U+001F, tab and line feed included; DEL U+007F; C1
/// U+0080–U+009F) and the bidirectional formatting characters (the embeddings and overrides
/// U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E, U+200F and U+061C) are each
/// replaced by U+FFFD REPLACEMENT CHARACTER: a raw ESC, BEL or NUL cannot drive a terminal and an
/// override cannot make `evil-ups` read as another name, and the replacement shows where
/// something was. Everything else is kept. (`/metrics` label values keep the original text:
/// the exposition formats escape what they must.)
package enum DisplayText {
    /// What stands in for a character that is not shown.
    package static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// Whether `scalar` is replaced (a control or bidirectional formatting character).
    @inlinable
    package static func isReplaced(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` with every replaced character (``isReplaced(_:)``) as ``replacement``.
    package static func sanitized(_ text: String) -> String {
        // Nearly every text is printable ASCII: returned as is.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: isReplaced) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isReplaced(scalar) ? replacement : scalar) }
        return String(scalars)
    }
}
