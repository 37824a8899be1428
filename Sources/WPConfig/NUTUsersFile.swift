/// The NUT server's users (`nut.users_file`), a YAML file:
///
/// ```yaml
/// users:
///   monuser:                  # a Synology NAS logs in as monuser/secret
///     password: secret
///     upsmon: secondary
///   admin:
///     password_hash: $2y$10$...   # bcrypt, as in the web configuration (htpasswd -nBC 10 admin)
///     upsmon: primary
///   homeassistant:
///     password: ha-reads-only    # no upsmon: may log in and read, not claim primary nor set FSD
/// ```
///
/// Every problem is reported with its `file:line:column`; a password is never echoed.
public struct NUTUsersFile: Sendable, Equatable {
    /// One user.
    public struct User: Sendable, Equatable {
        /// The user name NUT clients log in with (the key under `users`).
        public var name: String
        /// `password`: the plain password.
        public var password: Secret?
        /// `password_hash`: a bcrypt hash.
        public var passwordHash: String?
        /// `upsmon`: `primary` (also `master`) or `secondary` (also `slave`); nil for none.
        public var upsmon: String?
    }

    /// The most users the file may list (1,000): far more than the hosts of any site, few
    /// enough that checking each (a bcrypt hash among them) stays quick.
    public static let maxEntries = 1_000

    /// The users, in file order.
    public var users: [User] = []

    /// Reads and validates the file at `path`.
    ///
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func load(path: String, files: FileAccess) throws(ConfigurationError) -> NUTUsersFile {
        try WebConfigurationReader.load(path: path, files: files, key: "nut.users_file", parse: parse)
    }

    /// Validates users file text; `file` names it in messages.
    public static func parse(_ text: String, file: String, files: FileAccess) throws(ConfigurationError) -> NUTUsersFile {
        try WebConfigurationReader.parse(text, file: file, files: files) { root, reader in
            var result = NUTUsersFile()
            guard let root, let entries = reader.mapping(root, key: "(top level)") else { return result }
            for entry in entries {
                guard entry.key == "users" else {
                    reader.unknown(entry, in: nil, allowed: ["users"])
                    continue
                }
                result.users = readUsers(entry.value, &reader)
            }
            return result
        }
    }

    private static func readUsers(_ node: YAMLNode, _ reader: inout WebConfigurationReader) -> [User] {
        guard let entries = reader.mapping(node, key: "users") else { return [] }
        guard entries.count <= maxEntries else {
            reader.problem("users", node.position, "lists \(entries.count) users; a users file holds at most \(maxEntries)")
            return []
        }
        var users: [User] = []
        for entry in entries {
            let key = "users.\(entry.key)"
            guard isValidName(entry.key) else {
                reader.problem(key, entry.keyPosition, "a user name is 1 to 64 letters, digits, '.', '_', '-' or '@'")
                continue
            }
            guard let fields = reader.mapping(entry.value, key: key) else { continue }
            var user = User(name: entry.key)
            for field in fields {
                switch field.key {
                case "password":
                    user.password = reader.string(field.value, key: "\(key).password").map(Secret.init)
                    if let password = user.password?.reveal(), password.isEmpty || password.utf8.count > LoadState.passwordLimit {
                        reader.problem("\(key).password", field.value.position,
                                       "must hold 1 to \(LoadState.passwordLimit) bytes")
                    }
                case "password_hash":
                    guard let hash = reader.string(field.value, key: "\(key).password_hash") else { continue }
                    if WebConfigurationReader.isBcrypt(hash) {
                        user.passwordHash = hash
                    } else {
                        reader.problem("\(key).password_hash", field.value.position,
                                       "is not a bcrypt hash; expected $2a$, $2b$ or $2y$, a cost of 04–31 and 53 characters "
                                           + "(generate one with `htpasswd -nBC 10 USER`)")
                    }
                case "upsmon":
                    guard let role = reader.string(field.value, key: "\(key).upsmon") else { continue }
                    switch role.lowercased() {
                    case "primary", "master": user.upsmon = "primary"
                    case "secondary", "slave": user.upsmon = "secondary"
                    default: reader.problem("\(key).upsmon", field.value.position, "must be primary or secondary")
                    }
                default:
                    reader.unknown(field, in: key, allowed: ["password", "password_hash", "upsmon"])
                }
            }
            switch (user.password, user.passwordHash) {
            case (nil, nil): reader.problem(key, entry.keyPosition, "needs password or password_hash")
            case (.some, .some): reader.problem(key, entry.keyPosition, "has both password and password_hash; keep one")
            default: users.append(user)
            }
        }
        return users
    }

    private static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_@".unicodeScalars.contains($0))
        }
    }
}
