import Testing
import WPTestThreads
@testable import WPConfig

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct NUTConfigurationTests {
    @Test func keysFromTheFileWithDefaults() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(file: """
            nut:
              listen: ":3493"
              users_file: /etc/wpexporter/nut-users.yml
              battery_charge_low: 25
              battery_runtime_low: 5m
              default_ups: main
            """, files: ["/etc/wpexporter/nut-users.yml": "users:\n  monuser:\n    password: secret\n"]))
        let nut = loaded.configuration.nut
        #expect(nut.listen == ":3493")
        #expect(nut.address?.host == "0.0.0.0" && nut.address?.port == 3493)
        #expect(nut.usersFile == "/etc/wpexporter/nut-users.yml")
        #expect(nut.allowAnonymous)
        #expect(nut.batteryChargeLow == 25)
        #expect(nut.batteryRuntimeLow == .seconds(300))
        #expect(nut.defaultUPS == "main")
        #expect(nut.maxConnections == 256)
        #expect(try ConfigurationLoader.load(TestInputs.make()).configuration.nut.listen == nil, "off by default")
    }

    /// A users file with plain passwords that others can read is warned about (as upsd warns);
    /// hashes only, or mode 600, is not.
    @Test func aReadableUsersFileWithPlainPasswordsIsWarnedAbout() throws {
        let plain = "users:\n  monuser:\n    password: secret\n    upsmon: secondary\n"
        let hashed = "users:\n  admin:\n    password_hash: $2y$10$abcdefghijklmnopqrstuuMGjOkMNe4G0pmBmdLGqeh2Ar.gw.pLW\n"
        func warnings(_ users: String, mode: Int) throws -> [String] {
            try ConfigurationLoader.load(TestInputs.make(file: "nut:\n  listen: \":3493\"\n  users_file: /u.yml\n",
                                                         files: ["/u.yml": users], modes: ["/u.yml": mode]))
                .warnings.map(\.description).filter { $0.contains("nut.users_file") }
        }
        let warned = try warnings(plain, mode: 0o644)
        #expect(warned.count == 1)
        #expect(warned.first?.contains("\"/u.yml\" holds plain passwords and is readable by other users (mode 0644); run chmod 600 /u.yml") == true)
        #expect(warned.first?.contains("secret") == false, "no password in the warning")
        #expect(try warnings(plain, mode: 0o600).isEmpty)
        #expect(try warnings(hashed, mode: 0o644).isEmpty)
    }

    @Test func listenAddresses() {
        func address(_ listen: String) -> String? {
            var nut = ExporterConfiguration.NUT()
            nut.listen = listen
            return nut.address.map { "\($0.host) \($0.port)" }
        }
        #expect(address(":3493") == "0.0.0.0 3493")
        #expect(address("127.0.0.1:0") == "127.0.0.1 0")
        #expect(address("[::1]:3493") == "::1 3493")
        #expect(address("3493") == nil)
        #expect(address("host:99999") == nil)
        #expect(address("a b:1") == nil)
    }

    /// Every problem of the users file is listed with its position; no password is echoed.
    @Test func usersFileProblemsHavePositionsAndNoPasswords() {
        let problems = TestInputs.problems(TestInputs.make(file: "nut:\n  listen: \"nowhere\"\n  users_file: /u.yml\n",
                                                           files: ["/u.yml": """
            users:
              monuser:
                password: hunter2-secret
                upsmon: boss
              hashed:
                password_hash: hunter3-not-a-hash
              both:
                password: x
                password_hash: $2y$10$abcdefghijklmnopqrstuuMGjOkMNe4G0pmBmdLGqeh2Ar.gw.pLW
              none:
                upsmon: primary
              "bad name":
                password: y
            extra: 1
            """]))
        #expect(problems.contains { $0.contains("nut.listen") && $0.contains("is not host:port") })
        #expect(problems.contains("/u.yml:4:13: users.monuser.upsmon: must be primary or secondary"))
        #expect(problems.contains { $0.hasPrefix("/u.yml:6:20: users.hashed.password_hash: is not a bcrypt hash") })
        #expect(problems.contains("/u.yml:7:3: users.both: has both password and password_hash; keep one"))
        #expect(problems.contains("/u.yml:10:3: users.none: needs password or password_hash"))
        #expect(problems.contains { $0.hasPrefix("/u.yml:12:3: users.bad name:") })
        #expect(problems.contains { $0.hasPrefix("/u.yml:14:1: extra: unknown key") })
        #expect(!problems.joined().contains("hunter"), "passwords and wrong hashes are never shown")
    }

    @Test func aUsersFileIsParsedWithRoles() throws {
        let file = try NUTUsersFile.parse("""
            users:
              monuser:
                password: secret
                upsmon: secondary
              admin:
                password_hash: $2y$10$abcdefghijklmnopqrstuuMGjOkMNe4G0pmBmdLGqeh2Ar.gw.pLW
                upsmon: master
              ha:
                password: reads
            """, file: "u.yml", files: .inMemory([:]))
        #expect(file.users.map(\.name) == ["monuser", "admin", "ha"])
        #expect(file.users.map(\.upsmon) == ["secondary", "primary", nil])
        #expect(file.users[0].password?.reveal() == "secret")
        #expect(file.users[1].passwordHash?.hasPrefix("$2y$10$") == true)
    }
}
