/// The one way the libraries mask secrets in text they did not write themselves (an error's
/// detail that libcurl or a peer quoted, a Pushgateway's answer), and the one mask every log,
/// error and page shows in a secret's place (WPLogging's `Redactor` writes the same).
///
/// ```swift
/// Redaction.masking(["s3cr3t"], in: "login failed for s3cr3t")   // "login failed for ***"
/// ```
public enum Redaction {
    /// What stands where a secret was: `***`.
    public static let mask = "***"

    /// `text` with every occurrence of each non-empty secret replaced by ``mask``, the
    /// longest secrets first (so a secret that contains another is masked whole).
    public static func masking(_ secrets: some Sequence<String>, in text: String) -> String {
        var text = text
        for secret in secrets.filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) where text.contains(secret) {
            text = text.replacing(secret, with: mask)
        }
        return text
    }
}
