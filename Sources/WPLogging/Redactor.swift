import Synchronization

/// Masks secrets in log records: by field name, by registered secret value, `Bearer` and
/// `Basic` credentials, and passwords in URLs.
///
/// Every ``Logger`` holds a redactor and applies it in ``Logger/log(_:_:_:file:line:)`` to
/// every record before it reaches a sink, so a call site cannot bypass it:
///
/// - **By key.** A field whose name ends (case-insensitively, word by word) in `password`,
///   `passwd`, `secret`, `token`, `authorization`, `cookie`, `api_key` or `apikey` has its
///   whole value replaced by `***`, whatever its type; a field that only mentions one, such as
///   `token_lifetime_s`, is not. See ``isSensitiveKey(_:)``.
/// - **By value.** Secrets registered with ``register(_:)`` or ``setSecret(_:named:)`` (the
///   configured WinPower password, the current session token) are replaced by `***` wherever
///   they occur inside a message or a field value, including numbers whose text contains them.
///   Each secret is also matched in its percent-encoded form (`p@ss w` → `p%40ss%20w`, as in a
///   URL or form body) and its JSON-escaped form (`a"b` → `a\"b`), so it is masked when a
///   request body or URL is logged.
/// - **Credentials in text.** `Bearer <token>` and `Basic <base64 of user:password>` (any
///   case, at a word start) become `Bearer ***` and `Basic ***`, and the password of a URL's
///   user information becomes `***` (`https://admin:***@host`), in messages and field values,
///   even when nothing was registered.
///
/// A redactor is a reference type shared by a logger and all its children, and it is
/// thread-safe: the client can call ``setSecret(_:named:)`` with a fresh token while other tasks
/// log. Longer secrets are matched first, so a secret that contains another is masked whole.
/// An empty secret is ignored. A very short secret (a few characters) is still masked
/// everywhere it occurs, which can make unrelated text noisy; that is the safe trade-off.
///
/// ```swift
/// let redactor = Redactor()
/// redactor.register(configuration.password)
/// let log = Logger(label: "client", sink: sink, redactor: redactor)
/// redactor.setSecret(session.token, named: "winpower.token")   // replaces the previous token
/// log.info("login ok for \(url)", ["token": .string(session.token)])  // token=***
/// ```
public final class Redactor: Sendable {
    /// What masked text is replaced with.
    public static let mask = "***"

    private struct State {
        var anonymous: Set<String> = []
        var named: [String: String] = [:]
        /// All secrets as UTF-8, longest first; rebuilt on every change.
        var patterns: [[UInt8]] = []

        mutating func rebuild() {
            var all: Set<[UInt8]> = []
            for secret in anonymous.union(named.values) where !secret.isEmpty {
                all.formUnion(SecretScanner.variants(of: Array(secret.utf8)))
            }
            patterns = all.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        }
    }

    private let state: Mutex<State>

    /// Creates a redactor that masks `secrets` (plus sensitive keys and credentials in text).
    ///
    /// - Parameter secrets: Values to mask wherever they occur; empty strings are ignored.
    public init(secrets: [String] = []) {
        var initial = State()
        initial.anonymous = Set(secrets)
        initial.rebuild()
        state = Mutex(initial)
    }

    /// Adds a secret value that stays registered for the redactor's lifetime.
    ///
    /// - Parameter secret: The value to mask; an empty string is ignored.
    public func register(_ secret: String) {
        guard !secret.isEmpty else { return }
        state.withLock { state in
            state.anonymous.insert(secret)
            state.rebuild()
        }
    }

    /// Sets (or with `nil`, removes) the secret stored under `name`, replacing its previous
    /// value. Use it for values that rotate, such as a session token, so that the set of
    /// secrets does not grow for ever.
    ///
    /// - Parameters:
    ///   - secret: The current value, or `nil` to forget the slot.
    ///   - name: A slot name of your choosing, e.g. `winpower.token`.
    public func setSecret(_ secret: String?, named name: String) {
        state.withLock { state in
            state.named[name] = secret
            state.rebuild()
        }
    }

    /// The number of distinct non-empty secret values currently masked (not counting their
    /// encoded variants).
    public var secretCount: Int {
        state.withLock { Set($0.anonymous.union($0.named.values).filter { !$0.isEmpty }).count }
    }

    /// `text` with every registered secret and every Bearer, Basic or URL credential masked.
    ///
    /// - Parameter text: Any text, typically a log message or field value.
    /// - Returns: The masked text; the same string when nothing matched.
    public func redact(_ text: String) -> String {
        let patterns = state.withLock { $0.patterns }
        return SecretScanner.mask(text, patterns: patterns)
    }

    /// `fields` with sensitive keys masked whole and secrets masked inside the other values.
    ///
    /// - Parameter fields: The fields of one record.
    /// - Returns: The masked fields.
    public func redact(_ fields: LogFields) -> LogFields {
        if fields.isEmpty { return fields }
        return redact(fields, patterns: state.withLock { $0.patterns })
    }

    private func redact(_ fields: LogFields, patterns: [[UInt8]]) -> LogFields {
        if fields.isEmpty { return fields }
        var result = fields
        for (key, value) in fields {
            if Self.isSensitiveKey(key) {
                result[key] = .string(Self.mask)
                continue
            }
            switch value {
            case .string(let text):
                let masked = SecretScanner.mask(text, patterns: patterns)
                if masked != text { result[key] = .string(masked) }
            case .int, .double:
                guard !patterns.isEmpty else { continue }
                let text = value.description
                let masked = SecretScanner.mask(text, patterns: patterns)
                if masked != text { result[key] = .string(masked) }
            case .bool:
                continue
            }
        }
        return result
    }

    /// Names that mark a field as holding a secret when they end its key (compared
    /// case-insensitively, word by word): `password`, `x-auth-token`, `client_secret`, `apiKey`.
    public static let sensitiveNames = ["password", "passwd", "pwd", "passphrase", "secret", "token",
                                        "authorization", "cookie", "apikey", "credential", "credentials",
                                        "passwords", "secrets", "tokens", "cookies"]

    /// The former substring list; ``isSensitiveKey(_:)`` now matches ``sensitiveNames`` by word.
    @available(*, deprecated, renamed: "sensitiveNames")
    public static var sensitiveKeyFragments: [String] { sensitiveNames }

    /// Whether a field named `key` holds a secret: the key's last word is one of
    /// ``sensitiveNames``, or its last two words are `api key` (ASCII case ignored).
    ///
    /// Words are split at any character other than a letter or digit and where a lower-case
    /// letter meets an upper-case one, so `Password`, `x_auth_token`, `Set-Cookie`,
    /// `X-Api-Key` and `sessionToken` are sensitive, while a field that only mentions a
    /// secret — `token_lifetime_s`, `password_file`, `secret_count` — is logged as it is.
    public static func isSensitiveKey(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { bytes in
            guard let last = KeyWords.lastWord(in: bytes, before: bytes.count) else { return false }
            if sensitiveNameBytes.contains(where: { KeyWords.equals(bytes, last, $0) }) { return true }
            guard KeyWords.equals(bytes, last, apiKeyWords[1]),
                  let previous = KeyWords.lastWord(in: bytes, before: last.lowerBound) else { return false }
            return KeyWords.equals(bytes, previous, apiKeyWords[0])
        }
    }

    private static let sensitiveNameBytes: [[UInt8]] = sensitiveNames.map { Array($0.utf8) }
    private static let apiKeyWords: [[UInt8]] = [Array("api".utf8), Array("key".utf8)]

    /// The message and fields of one record, redacted under a single lock acquisition.
    func redact(message: String, fields: LogFields) -> (String, LogFields) {
        let patterns = state.withLock { $0.patterns }
        return (SecretScanner.mask(message, patterns: patterns), redact(fields, patterns: patterns))
    }
}
