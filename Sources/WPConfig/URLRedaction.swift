/// Masks the password of a URL's user information (`https://user:pass@host` →
/// `https://user:******@host`), so URLs can be shown in messages and dumps.
enum URLRedaction {
    /// The URL text with any userinfo password replaced by ``Secret/mask``.
    ///
    /// The user information ends at the **last** `@` of the text, so a password holding `/`,
    /// `?`, `#`, `@` or any other character is masked whole, as a client that reads the
    /// authority up to the first `/` would otherwise show part of it. The user name runs to the
    /// first `:` after `://` and cannot hold `/`, `?`, `#`, `[` or `]`: in
    /// `https://h.example/a@b:c` and `http://[::1]/x?a:b@c` the `@` is in the path or query and
    /// nothing is masked. A URL with a port whose path or query holds an `@`
    /// (`http://h:80/p?m=a@b`) reads the same as a password holding `/`, and is masked.
    static func redact(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else {
            return text
        }
        let userInfo = text[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":"),
              !userInfo[..<colon].contains(where: { "/?#[]".contains($0) }) else { return text }
        return String(text[...colon]) + Secret.mask + String(text[at...])
    }
}
