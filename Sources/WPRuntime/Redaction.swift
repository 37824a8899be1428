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
        var bytes = Array(text.utf8)
        for secret in secrets.map({ Array($0.utf8) }).filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            bytes = replacing(secret, in: bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `bytes` with every occurrence of `secret` (not empty) replaced by ``mask``, left to right.
    /// Byte-wise, so WPRuntime needs no string-processing library.
    private static func replacing(_ secret: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= secret.count else { return bytes }
        var result: [UInt8] = []
        var index = 0
        var found = false
        while index < bytes.count {
            if bytes.count - index >= secret.count, bytes[index] == secret[0],
               bytes[index..<index + secret.count].elementsEqual(secret) {
                result.append(contentsOf: mask.utf8)
                index += secret.count
                found = true
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return found ? result : bytes
    }
}
