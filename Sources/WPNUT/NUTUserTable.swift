package import WPServer

/// One NUT user: name, password (plain or a bcrypt hash) and `upsmon` role.
package struct NUTAccount: Sendable, Equatable {
    /// How the password is kept.
    package enum Secret: Sendable, Equatable {
        case plain(String)
        /// A bcrypt hash (`$2b$10$…`, `$2y$`, `$2a$`), as in the web configuration file.
        case bcrypt(String)
    }

    package var name: String
    package var secret: Secret
    package var role: NUTRole?

    package init(name: String, secret: Secret, role: NUTRole?) {
        self.name = name
        self.secret = secret
        self.role = role
    }
}

/// The configured users, checked as basic authentication is: bcrypt on the shared pool's
/// threads (never the event loop or Swift's pool; a client that failed too often waits in the
/// pool's suspect lane, behind everyone else), plain passwords compared in constant time.
package final class NUTUserTable: NUTUsers {
    private let accounts: [String: NUTAccount]
    private let pool: BCryptPool

    /// - Parameters:
    ///   - accounts: the users (names unique: validation checks them).
    ///   - pool: where bcrypt checks run.
    package init(_ accounts: [NUTAccount], pool: BCryptPool = BCryptPool()) {
        self.accounts = Dictionary(accounts.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.pool = pool
    }

    package func authenticate(username: String, password: String, suspect: Bool) async -> NUTUser? {
        guard let account = accounts[username] else { return nil }
        let matches: Bool
        switch account.secret {
        case .plain(let expected):
            matches = BCrypt.constantTimeEqual(expected, password)
        case .bcrypt(let hash):
            matches = await pool.run(lane: suspect ? .suspect : .clean) {
                BCrypt.hash(password: password, setting: hash).map { BCrypt.constantTimeEqual($0, hash) } ?? false
            } ?? false
        }
        return matches ? NUTUser(name: account.name, role: account.role) : nil
    }
}
