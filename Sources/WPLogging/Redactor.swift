import WPRuntime
import Synchronization

/// Masks secrets in log records: by field name, by registered secret value, `Bearer` and
/// `Basic` credentials, and passwords in URLs.
///
/// Every ``WPLogger`` holds a redactor and applies it in ``WPLogger/log(_:_:_:file:line:)`` to
/// every record before it reaches a sink, so a call site cannot bypass it:
///
/// - **By key.** A field whose name ends (case-insensitively, word by word) in `password`,
///   `passwd`, `secret`, `token`, `authorization`, `cookie`, `api_key` or `apikey` has its
///   whole value replaced by `***`, whatever its type; a field that only mentions one, such as
///   `token_lifetime_s`, is not. See ``isSensitiveKey(_:)``.
/// - **By value.** Secrets registered with ``register(_:)`` or ``setSecret(_:named:)`` (the
///   configured WinPower password, the current session token) are replaced by `***` wherever
///   they stand as a value in a message or a field value, including numbers whose text is one:
///   after the start or a separator (a blank, a quote, `=`, `:`, `,`, `/`, `@`, `&` and the
///   like) and up to the end, a separator or a sentence's closing `.` or `!`. They are never
///   masked inside a word or a number: with the secret `x`, `exporter` is logged as it is.
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
/// log. Changing the secrets never holds up logging: the new set of patterns (each secret and its
/// encoded forms, longest first) is computed under a lock only writers take, then swapped in
/// whole; `redact` only copies the current set. Longer secrets are matched first,
/// so a secret that contains another is masked whole. An empty secret is ignored, and so is one
/// longer than ``maxSecretLength`` bytes (``register(_:)`` and ``setSecret(_:named:)`` return
/// `false`): no password or token is that long, and each registered secret costs time on every
/// record. A very short secret (a few characters) is accepted and masked where it stands as a
/// value, so it damages no word; a value equal to it (`attempt=1` with the secret `1`) is
/// masked too, the safe trade-off.
///
/// ```swift
/// let redactor = Redactor()
/// redactor.setSecret(configuration.password, named: "winpower.password")  // replaced on reload
/// let log = WPLogger(label: "client", sink: sink, redactor: redactor)
/// redactor.setSecret(session.token, named: "winpower.token")   // replaces the previous token
/// log.info("login ok for \(url)", ["token": .string(session.token)])  // token=***
/// ```
public final class Redactor: Sendable {
    /// What masked text is replaced with.
    public static let mask = Redaction.mask

    /// The longest secret, in UTF-8 bytes, that a redactor accepts (4 KiB). Longer values are
    /// refused: a password or session token is far shorter, and the configuration loader
    /// refuses longer passwords and password files.
    public static let maxSecretLength = 4096

    /// The secrets as registered; only writers touch it, under `registry`'s lock.
    private struct Registry {
        var anonymous: Set<String> = []
        var named: [String: String] = [:]
        /// Each secret's encoded forms, kept so that a change computes only the new secret's.
        var variants: [String: [[UInt8]]] = [:]

        static func accepts(_ secret: String) -> Bool {
            !secret.isEmpty && secret.utf8.count <= Redactor.maxSecretLength
        }

        /// What `redact` reads after this change: every secret's forms, longest first.
        mutating func publish() -> Published {
            let secrets = anonymous.union(named.values)
            variants = variants.filter { secrets.contains($0.key) }
            var all: Set<[UInt8]> = []
            for secret in secrets {
                let forms = variants[secret] ?? SecretScanner.variants(of: Array(secret.utf8))
                variants[secret] = forms
                all.formUnion(forms)
            }
            let patterns = all.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
            return Published(patterns: patterns, secretCount: secrets.count, names: named.keys.sorted())
        }
    }

    /// What readers see; replaced whole, never changed in place.
    private struct Published: Sendable {
        /// All secrets and their encoded forms as UTF-8, longest first.
        var patterns: [[UInt8]] = []
        var secretCount = 0
        var names: [String] = []
    }

    /// Held by writers while they compute the next ``Published``; `redact` never takes it.
    private let registry: Mutex<Registry>
    /// Held only to copy or swap the published patterns.
    private let published: Mutex<Published>

    /// Creates a redactor that masks `secrets` (plus sensitive keys and credentials in text).
    ///
    /// - Parameter secrets: Values to mask wherever they stand as values; empty strings and strings longer
    ///   than ``maxSecretLength`` bytes are ignored.
    public init(secrets: [String] = []) {
        var initial = Registry()
        initial.anonymous = Set(secrets.filter(Registry.accepts))
        published = Mutex(initial.publish())
        registry = Mutex(initial)
    }

    /// Changes the registry under the writers' lock and swaps the result in; the previous
    /// patterns are released after the readers' lock is let go.
    private func update(_ change: (inout Registry) -> Void) {
        registry.withLock { registry in
            change(&registry)
            var next = registry.publish()
            published.withLock { swap(&$0, &next) }
        }
    }

    /// Runs `body` while holding the lock a registration holds as it computes the next patterns,
    /// as a slow registration would; tests use it to show that redaction does not wait.
    func whileRegistering(_ body: () -> Void) {
        registry.withLock { _ in body() }
    }

    /// Adds a secret value that stays registered for the redactor's lifetime. Use
    /// ``setSecret(_:named:)`` for values that can change (a reloaded password, a token).
    ///
    /// - Parameter secret: The value to mask; an empty string is ignored.
    /// - Returns: Whether the secret is masked from now on: `false` when it is empty or longer
    ///   than ``maxSecretLength`` bytes.
    @discardableResult
    public func register(_ secret: String) -> Bool {
        guard Registry.accepts(secret) else { return false }
        update { _ = $0.anonymous.insert(secret) }
        return true
    }

    /// Sets (or with `nil`, removes) the secret stored under `name`, replacing its previous
    /// value. Use it for values that rotate, such as a session token, so that the set of
    /// secrets does not grow for ever. A refused value (empty, or longer than
    /// ``maxSecretLength`` bytes) empties the slot.
    ///
    /// - Parameters:
    ///   - secret: The current value, or `nil` to forget the slot.
    ///   - name: A slot name of your choosing, e.g. `winpower.token`.
    /// - Returns: Whether `secret` is masked from now on (`true` for `nil`).
    @discardableResult
    public func setSecret(_ secret: String?, named name: String) -> Bool {
        let accepted = secret.map(Registry.accepts) ?? true
        update { $0.named[name] = accepted ? secret : nil }
        return accepted
    }

    /// Makes `secrets` the slots whose names start with `prefix`, in one step: each slot in
    /// `secrets` is set as by ``setSecret(_:named:)``, and every other slot under `prefix` is
    /// removed. Use it for a group of values that is replaced together, such as the passwords of
    /// the configured servers after a reload (`servers.` → `servers.<name>.password`), so that
    /// replaced values and the slots of removed entries stop being masked.
    ///
    /// - Parameters:
    ///   - prefix: The group's name prefix, e.g. `servers.`.
    ///   - secrets: The group's slots by full name; each name should start with `prefix`.
    /// - Returns: The names whose values were refused (empty or too long), sorted; their slots
    ///   are empty.
    @discardableResult
    public func replaceSecrets(withPrefix prefix: String, by secrets: [String: String]) -> [String] {
        let refused = secrets.filter { !Registry.accepts($0.value) }.keys.sorted()
        update { registry in
            registry.named = registry.named.filter { !$0.key.hasPrefix(prefix) }
            for (name, secret) in secrets where Registry.accepts(secret) { registry.named[name] = secret }
        }
        return refused
    }

    /// The number of distinct non-empty secret values currently masked (not counting their
    /// encoded variants).
    public var secretCount: Int {
        published.withLock { $0.secretCount }
    }

    /// The names of the slots set with ``setSecret(_:named:)`` or
    /// ``replaceSecrets(withPrefix:by:)`` that hold a secret, sorted.
    public var secretNames: [String] {
        published.withLock { $0.names }
    }

    /// `text` with every registered secret and every Bearer, Basic or URL credential masked.
    ///
    /// - Parameter text: Any text, typically a log message or field value.
    /// - Returns: The masked text; the same string when nothing matched.
    public func redact(_ text: String) -> String {
        let patterns = published.withLock { $0.patterns }
        return SecretScanner.mask(text, patterns: patterns)
    }

    /// `fields` with sensitive keys masked whole and secrets masked inside the other values.
    ///
    /// - Parameter fields: The fields of one record.
    /// - Returns: The masked fields.
    public func redact(_ fields: LogFields) -> LogFields {
        if fields.isEmpty { return fields }
        return redact(fields, patterns: published.withLock { $0.patterns })
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
        let patterns = published.withLock { $0.patterns }
        return (SecretScanner.mask(message, patterns: patterns), redact(fields, patterns: patterns))
    }
}
