/// The SNMP agent's access and notification receivers (`snmp.users_file`), a YAML file kept
/// like the NUT users file (`chmod 600`: it holds communities and passwords):
///
/// ```yaml
/// communities:                # SNMPv1/v2c, read-only
///   - community: n0t-public   # `n0t-public@rack-a` selects the UPS named rack-a
///     view: all               # all (default) or system (the system group only)
/// users:                      # SNMPv3 (USM), read-only
///   librenms:
///     auth_password: long-auth-secret   # 8 characters at least
///     priv_password: long-priv-secret   # AES-128; with both, authPriv is required
///   zabbix-signing:
///     auth_protocol: SHA-512            # SHA, SHA-224, SHA-256 (the default), SHA-384, SHA-512
///     auth_password: another-secret     # authNoPriv
///   open:
///     no_auth: true                     # noAuthNoPriv, only when said so
/// traps:                      # notification receivers (IP address literals)
///   - address: 192.0.2.10:162
///     community: traps-community        # SNMPv2c trap
///   - address: 192.0.2.11
///     community: traps-community
///     inform: true                      # SNMPv2c inform, resent until acknowledged
///   - address: 192.0.2.12:162
///     user: librenms                    # SNMPv3 trap as that user, at its level
///   - address: 192.0.2.13
///     user: librenms
///     inform: true                      # SNMPv3 inform: the receiver's engine discovered first
/// ```
///
/// Every problem is reported with its `file:line:column`; a community or password is never
/// echoed (entries are named by their position: `communities[0]`).
public struct SNMPUsersFile: Sendable, Equatable {
    /// One entry of `communities`: an SNMPv1/v2c community with read-only access.
    public struct Community: Sendable, Equatable {
        /// `community`: the community string (a request may add `@<ups name>` to select a UPS).
        public var community: Secret
        /// `view`: everything (`false`) or the system group only (`true`).
        public var systemOnly: Bool
    }

    /// One entry of `users`: an SNMPv3 (USM) user with read-only access.
    public struct User: Sendable, Equatable {
        /// The user name (the key under `users`).
        public var name: String
        /// `auth_protocol`: the HMAC the user authenticates with; SHA-256 when not given.
        public var authProtocol: AuthProtocol = .sha256
        /// `auth_password`: the authentication password (8 characters at least); `nil` with
        /// `no_auth`.
        public var authPassword: Secret?
        /// `priv_password`: the AES-128 privacy password; with it the user must use authPriv.
        public var privPassword: Secret?
        /// `no_auth: true`: a user without passwords (noAuthNoPriv), allowed only so.
        public var noAuth: Bool
    }

    /// A user's `auth_protocol`: HMAC-96-SHA-1 (RFC 3414) or one of RFC 7860's SHA-2 HMACs,
    /// named as net-snmp names them (`-a SHA-256`).
    public enum AuthProtocol: String, Sendable, Equatable, CaseIterable {
        /// `SHA`: HMAC-96-SHA-1 (RFC 3414).
        case sha1 = "SHA"
        /// `SHA-224`: HMAC-128-SHA-224 (RFC 7860).
        case sha224 = "SHA-224"
        /// `SHA-256`: HMAC-192-SHA-256 (RFC 7860), the default.
        case sha256 = "SHA-256"
        /// `SHA-384`: HMAC-256-SHA-384 (RFC 7860).
        case sha384 = "SHA-384"
        /// `SHA-512`: HMAC-384-SHA-512 (RFC 7860).
        case sha512 = "SHA-512"

        /// The protocol a users file names: net-snmp's spellings with or without the dash
        /// (`SHA-256`, `SHA256`), `SHA` or `SHA-1` for SHA-1, any case.
        public init?(spelling: String) {
            switch String(spelling.uppercased().filter { $0 != "-" }) {
            case "SHA", "SHA1": self = .sha1
            case "SHA224": self = .sha224
            case "SHA256": self = .sha256
            case "SHA384": self = .sha384
            case "SHA512": self = .sha512
            default: return nil
            }
        }
    }

    /// One entry of `traps`: a notification receiver.
    public struct Trap: Sendable, Equatable {
        /// The receiver's IP address, from `address`.
        public var host: String
        /// The receiver's UDP port, from `address`; 162 when it gives none.
        public var port: Int
        /// `community`: the SNMPv2c community notifications are sent with; `nil` for an SNMPv3
        /// receiver.
        public var community: Secret?
        /// `user`: the SNMPv3 user notifications are sent as, at its security level; `nil` for
        /// SNMPv2c.
        public var user: String?
        /// `inform`: send informs, resent until acknowledged, instead of traps.
        public var inform: Bool
    }

    /// The most entries each of `communities`, `users` and `traps` may list (1,000).
    public static let maxEntries = 1_000

    /// `communities`, in file order.
    public var communities: [Community] = []
    /// `users`, in file order.
    public var users: [User] = []
    /// `traps`, in file order.
    public var traps: [Trap] = []

    /// Creates an empty file's value: no community, no user, no receiver.
    public init() {}

    /// Reads and validates the file at `path`.
    ///
    /// - Throws: ``ConfigurationError`` listing every problem.
    public static func load(path: String, files: FileAccess) throws(ConfigurationError) -> SNMPUsersFile {
        try WebConfigurationReader.load(path: path, files: files, key: "snmp.users_file", parse: parse)
    }

    /// Validates the file's text; `file` names it in messages.
    public static func parse(_ text: String, file: String, files: FileAccess) throws(ConfigurationError) -> SNMPUsersFile {
        try WebConfigurationReader.parse(text, file: file, files: files) { root, reader in
            var result = SNMPUsersFile()
            guard let root, let entries = reader.mapping(root, key: "(top level)") else { return result }
            var trapPositions: [SourcePosition] = []
            for entry in entries {
                switch entry.key {
                case "communities": result.communities = readCommunities(entry.value, &reader)
                case "users": result.users = readUsers(entry.value, &reader)
                case "traps": (result.traps, trapPositions) = readTraps(entry.value, &reader)
                default: reader.unknown(entry, in: nil, allowed: ["communities", "users", "traps"])
                }
            }
            let names = Set(result.users.map(\.name))
            for (index, trap) in result.traps.enumerated() {
                if let user = trap.user, !names.contains(user) {
                    reader.problem("traps[\(index)].user", trapPositions[index], "\(user.debugDescription) is not one of users")
                }
            }
            if result.communities.isEmpty && result.users.isEmpty {
                reader.problem(nil, root.position, "grants no access: list communities or users")
            }
            return result
        }
    }

    private static func readCommunities(_ node: YAMLNode, _ reader: inout WebConfigurationReader) -> [Community] {
        guard let items = node.items else {
            reader.problem("communities", node.position, "must be a sequence of entries, found \(node.shapeName)")
            return []
        }
        guard items.count <= maxEntries else {
            reader.problem("communities", node.position, "lists \(items.count) communities; at most \(maxEntries)")
            return []
        }
        var communities: [Community] = []
        for (index, item) in items.enumerated() {
            let key = "communities[\(index)]"
            guard let fields = reader.mapping(item, key: key) else { continue }
            var community: Secret?
            var systemOnly = false
            for field in fields {
                switch field.key {
                case "community":
                    // Never echoed: a community is a password.
                    if let text = reader.string(field.value, key: "\(key).community") {
                        if text.isEmpty || text.utf8.count > 255 || text.contains("@") {
                            reader.problem("\(key).community", field.value.position,
                                           "must hold 1 to 255 bytes and no '@' (which selects a UPS)")
                        } else {
                            community = Secret(text)
                        }
                    }
                case "view":
                    switch reader.string(field.value, key: "\(key).view") {
                    case "all": systemOnly = false
                    case "system": systemOnly = true
                    case nil: break
                    default: reader.problem("\(key).view", field.value.position, "must be all or system")
                    }
                default:
                    reader.unknown(field, in: key, allowed: ["community", "view"])
                }
            }
            if let community {
                communities.append(Community(community: community, systemOnly: systemOnly))
            } else if !fields.contains(where: { $0.key == "community" }) {
                reader.problem(key, item.position, "needs community")
            }
        }
        return communities
    }

    private static func readUsers(_ node: YAMLNode, _ reader: inout WebConfigurationReader) -> [User] {
        guard let entries = reader.mapping(node, key: "users") else { return [] }
        guard entries.count <= maxEntries else {
            reader.problem("users", node.position, "lists \(entries.count) users; at most \(maxEntries)")
            return []
        }
        var users: [User] = []
        for entry in entries {
            let key = "users.\(entry.key)"
            guard !entry.key.isEmpty, entry.key.utf8.count <= 32, entry.key.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 }) else {
                reader.problem(key, entry.keyPosition, "a user name is 1 to 32 printable ASCII characters (RFC 3414 securityName)")
                continue
            }
            guard let fields = reader.mapping(entry.value, key: key) else { continue }
            var user = User(name: entry.key, authPassword: nil, privPassword: nil, noAuth: false)
            for field in fields {
                switch field.key {
                case "auth_password", "priv_password":
                    guard let text = reader.string(field.value, key: "\(key).\(field.key)") else { continue }
                    if text.count < 8 || text.utf8.count > LoadState.passwordLimit {
                        reader.problem("\(key).\(field.key)", field.value.position,
                                       "must hold 8 characters (RFC 3414 §11.2) to \(LoadState.passwordLimit) bytes")
                    } else if field.key == "auth_password" {
                        user.authPassword = Secret(text)
                    } else {
                        user.privPassword = Secret(text)
                    }
                case "auth_protocol":
                    guard let text = reader.string(field.value, key: "\(key).auth_protocol") else { continue }
                    if let named = AuthProtocol(spelling: text) {
                        user.authProtocol = named
                    } else {
                        reader.problem("\(key).auth_protocol", field.value.position,
                                       "\(text.debugDescription) is not an authentication protocol; use "
                                       + "SHA, SHA-224, SHA-256 (the default), SHA-384 or SHA-512 (MD5 is not offered)")
                    }
                case "no_auth":
                    user.noAuth = reader.boolean(field.value, key: "\(key).no_auth") ?? false
                default:
                    reader.unknown(field, in: key, allowed: ["auth_protocol", "auth_password", "priv_password", "no_auth"])
                }
            }
            let hasPasswords = fields.contains { $0.key == "auth_password" || $0.key == "priv_password" }
            if fields.contains(where: { $0.key == "auth_protocol" }) && !fields.contains(where: { $0.key == "auth_password" }) {
                reader.problem("\(key).auth_protocol", entry.keyPosition, "needs auth_password (a protocol without a password authenticates nothing)")
            }
            if fields.contains(where: { $0.key == "priv_password" }) && !fields.contains(where: { $0.key == "auth_password" }) {
                reader.problem(key, entry.keyPosition, "priv_password needs auth_password (privacy needs authentication)")
            } else if user.noAuth && hasPasswords {
                reader.problem(key, entry.keyPosition, "has no_auth and passwords; keep one")
            } else if !user.noAuth && !hasPasswords {
                reader.problem(key, entry.keyPosition, "needs auth_password (and priv_password), or no_auth: true")
            } else {
                users.append(user)
            }
        }
        return users
    }

    private static func readTraps(_ node: YAMLNode, _ reader: inout WebConfigurationReader) -> ([Trap], [SourcePosition]) {
        guard let items = node.items else {
            reader.problem("traps", node.position, "must be a sequence of receivers, found \(node.shapeName)")
            return ([], [])
        }
        guard items.count <= maxEntries else {
            reader.problem("traps", node.position, "lists \(items.count) receivers; at most \(maxEntries)")
            return ([], [])
        }
        var traps: [Trap] = []
        var positions: [SourcePosition] = []
        for (index, item) in items.enumerated() {
            let key = "traps[\(index)]"
            guard let fields = reader.mapping(item, key: key) else { continue }
            var trap = Trap(host: "", port: 162, community: nil, user: nil, inform: false)
            var valid = true
            for field in fields {
                switch field.key {
                case "address":
                    guard let text = reader.string(field.value, key: "\(key).address") else { valid = false; continue }
                    if let (host, port) = SNMPUsersFile.address(text, defaultPort: 162) {
                        (trap.host, trap.port) = (host, port)
                    } else {
                        valid = false
                        reader.problem("\(key).address", field.value.position,
                                       "\(text.debugDescription) is not an IP address with an optional port (192.0.2.10:162, [2001:db8::1]:162)")
                    }
                case "community":
                    if let text = reader.string(field.value, key: "\(key).community") {
                        if text.isEmpty || text.utf8.count > 255 {
                            valid = false
                            reader.problem("\(key).community", field.value.position, "must hold 1 to 255 bytes")
                        } else {
                            trap.community = Secret(text)
                        }
                    }
                case "user": trap.user = reader.string(field.value, key: "\(key).user")
                case "inform": trap.inform = reader.boolean(field.value, key: "\(key).inform") ?? false
                default: reader.unknown(field, in: key, allowed: ["address", "community", "user", "inform"])
                }
            }
            if trap.host.isEmpty && valid {
                reader.problem(key, item.position, "needs address")
                valid = false
            }
            if (trap.community == nil) == (trap.user == nil) && valid {
                reader.problem(key, item.position, "needs community or user, one of them")
                valid = false
            }
            if valid {
                traps.append(trap)
                positions.append(item.position)
            }
        }
        return (traps, positions)
    }

    /// An IPv4 or IPv6 address literal with an optional port: `192.0.2.1`, `192.0.2.1:162`,
    /// `[2001:db8::1]:162`, `2001:db8::1`.
    static func address(_ text: String, defaultPort: Int) -> (host: String, port: Int)? {
        guard let (host, port) = HostPort.parse(text, defaultPort: defaultPort, ports: 1...65535, emptyHost: nil, bareIPv6: true)
        else { return nil }
        return isAddressLiteral(host) ? (host, port) : nil
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 }) {
            return true
        }
        return host.contains(":") && host.count <= 45 && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}
