import Testing
@testable import WPConfig

@Suite(.timeLimit(.minutes(3))) struct NUTConfigurationTests {
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
