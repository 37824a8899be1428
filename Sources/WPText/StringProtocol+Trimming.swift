/// Whitespace trimming for the package's modules, which import FoundationEssentials at most
/// (no `CharacterSet`, no `trimmingCharacters(in:)`): the one implementation, for every module.
///
/// Works on Unicode scalars, like `trimmingCharacters(in:)`, so a trailing `"\r\n"` or a
/// combining mark after a space is handled the same way. `package` access: shared by the
/// package's modules, not part of WPRuntime's public API.
extension StringProtocol {
    /// The text without leading and trailing scalars that `trim` accepts.
    ///
    /// - Parameter trim: Whether a scalar is dropped from either end.
    /// - Returns: The remaining text; empty when every scalar is trimmed.
    @inlinable
    package func trimming(while trim: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !trim($0) }),
              let last = scalars.lastIndex(where: { !trim($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[start...last]))
    }

    /// The text without leading and trailing whitespace and newlines: what
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` returns.
    @inlinable
    package func trimmingWhitespace() -> String {
        trimming(while: \.isWhitespaceOrNewline)
    }

    /// The text without leading and trailing spaces and tabs (no newlines): what
    /// `trimmingCharacters(in: .whitespaces)` returns.
    @inlinable
    package func trimmingBlanks() -> String {
        trimming(while: \.isBlank)
    }

    /// The text without leading and trailing ASCII spaces and tabs: HTTP's optional
    /// whitespace, and the protocols' and formats' own (JSON values, `Accept` parameters,
    /// tables). Nearly every value has nothing to trim, and then no new storage is made.
    @inlinable
    package func trimmingSpacesAndTabs() -> String {
        let isSpaceOrTab = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let bytes = utf8
        guard let first = bytes.first, isSpaceOrTab(first) || bytes.reversed().first.map(isSpaceOrTab) == true else {
            return String(self)
        }
        return trimming(while: { $0 == " " || $0 == "\t" })
    }
}

extension Unicode.Scalar {
    /// A member of `CharacterSet.whitespaces`: a space separator (category Zs), a tab, or
    /// U+200B ZERO WIDTH SPACE (which Foundation's set still holds).
    @inlinable
    package var isBlank: Bool {
        self == "\t" || self == "\u{200B}" || properties.generalCategory == .spaceSeparator
    }

    /// A member of `CharacterSet.whitespacesAndNewlines`: a blank, U+000A–U+000D, NEL, or the
    /// line and paragraph separators U+2028/U+2029.
    @inlinable
    package var isWhitespaceOrNewline: Bool {
        isBlank || ("\n"..."\r").contains(self) || self == "\u{85}" || self == "\u{2028}" || self == "\u{2029}"
    }
}

extension String {
    /// ``StringProtocol/trimmingSpacesAndTabs()`` for a `String`: the value itself, not a copy,
    /// when there is nothing to trim (the JSON decoder calls it for every string value).
    @inlinable
    package func trimmingSpacesAndTabs() -> String {
        guard let first = utf8.first, let last = utf8.last,
              first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t")
        else { return self }
        return trimming(while: { $0 == " " || $0 == "\t" })
    }
}
