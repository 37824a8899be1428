/// Masks the password of a URL's user information (`https://user:pass@host` →
/// `https://user:******@host`), so URLs can be shown in messages and dumps.
enum URLRedaction {
    /// The URL text with any userinfo password replaced by ``Secret/mask``.
    static func redact(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://") else { return text }
        let authorityStart = scheme.upperBound
        let authorityEnd = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return text }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + Secret.mask + String(text[at...])
    }
}
