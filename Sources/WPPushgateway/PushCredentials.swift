import WPText
import WPRuntime
import WPMetrics

/// The basic-auth credentials of a ``PushgatewayClient``: the `Authorization` header it sends,
/// and the masking of every form of them in what a gateway (or a proxy in front of it)
/// answers, so no ``PushError`` carries them.
///
/// A gateway that echoes the request back shows the header's base64 `user:password`; one that
/// echoes the URL or a form may show the password raw or percent-encoded. All three are
/// replaced by `<redacted>`.
struct PushCredentials: Sendable {
    /// `Basic <base64 of username:password>`, or `nil` without a username.
    let header: String?
    /// The password and its encoded forms, longest first.
    private let secrets: [String]

    init(username: String?, password: String?) {
        guard let username else {
            header = nil
            secrets = password.map { [$0] } ?? []
            return
        }
        let encoded = Base64.encoded((username + ":" + (password ?? "")).utf8)
        header = "Basic " + encoded
        var forms: Set<String> = [encoded]
        if let password, !password.isEmpty {
            forms.insert(password)
            forms.insert(PushgatewayClient.percentEncoded(password))
            forms.insert(PushgatewayClient.percentEncoded(password, strict: true))
        }
        secrets = forms.sorted { $0.count > $1.count }
    }

    /// `text` with the credentials masked in each of their forms.
    func redact(_ text: String) -> String {
        Redaction.masking(secrets, in: text)
    }
}
