import Testing
import WPTestThreads
@testable import WPConfig

/// `snmp.users_file`'s users: each user's `auth_protocol`, SHA-256 when not given, in
/// net-snmp's spellings; a bad value named with the file, the user and the value, never a
/// password.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SNMPUsersFileTests {
    static func load(_ text: String) throws(ConfigurationError) -> SNMPUsersFile {
        try SNMPUsersFile.load(path: "/etc/wpexporter/snmp-users.yml", files: .inMemory(["/etc/wpexporter/snmp-users.yml": text]))
    }

    @Test func eachUserHasItsAuthenticationProtocolSHA256ByDefault() throws {
        let file = try Self.load("""
            users:
              legacy:
                auth_protocol: SHA
                auth_password: legacy-secret-1
                priv_password: legacy-secret-2
              modern:
                auth_protocol: sha-512
                auth_password: modern-secret-1
              plain:
                auth_password: plain-secret-1
            """)
        #expect(file.users.map(\.name) == ["legacy", "modern", "plain"])
        #expect(file.users.map(\.authProtocol) == [.sha1, .sha512, .sha256])
    }

    @Test(arguments: [("SHA", SNMPUsersFile.AuthProtocol.sha1), ("sha1", .sha1), ("SHA-1", .sha1), ("SHA224", .sha224),
                      ("sha-224", .sha224), ("SHA256", .sha256), ("SHA-256", .sha256), ("Sha384", .sha384), ("SHA-384", .sha384),
                      ("SHA512", .sha512), ("sha-512", .sha512)])
    func netSNMPsSpellingsAreAccepted(_ spelling: String, _ expected: SNMPUsersFile.AuthProtocol) throws {
        let file = try Self.load("users:\n  u:\n    auth_protocol: \(spelling)\n    auth_password: long-enough-1\n")
        #expect(file.users.first?.authProtocol == expected)
    }

    @Test(arguments: ["MD5", "SHA-999", "DES", "HMAC", ""])
    func anUnknownProtocolIsNamedWithTheFileTheUserAndTheValue(_ value: String) {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Self.load("users:\n  librenms:\n    auth_password: sw0rdfish-secret\n    auth_protocol: \"\(value)\"\n")
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("/etc/wpexporter/snmp-users.yml:4:"), "\(text)")
        #expect(text.contains("users.librenms.auth_protocol"), "\(text)")
        #expect(text.contains("\"\(value)\" is not an authentication protocol"), "\(text)")
        #expect(text.contains("SHA, SHA-224, SHA-256 (the default), SHA-384 or SHA-512"), "\(text)")
        #expect(!text.contains("sw0rdfish"), "no password in the error: \(text)")
    }

    @Test func aProtocolWithoutAPasswordIsRefused() {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Self.load("users:\n  open:\n    no_auth: true\n    auth_protocol: SHA\n")
        }
        #expect(error.map { "\($0)" }?.contains("users.open.auth_protocol") == true && error.map { "\($0)" }?.contains("needs auth_password") == true,
                "\(String(describing: error))")
    }
}
