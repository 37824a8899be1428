import Testing
import WPTestThreads
@testable import WPConfig

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ServersConfigurationTests {
    static let twoServers = """
        winpower:
          username: admin
          password: base-secret
          timeout: 20s
        servers:
          - name: building-a
            base_url: https://wp-a.example:8081
            labels:
              site: north
              room: "2.14"
          - name: building-b
            base_url: https://wp-b.example:8081
            username: operator
            password_file: /run/secrets/b
            collection_interval: 10s
            energy_from: winpower
            user_agent: site-b/1

        """

    static func load(_ file: String, files: [String: String] = [:], environment: [String: String] = [:],
                     purpose: ConfigurationInputs.Purpose = .server) throws -> LoadedConfiguration {
        try ConfigurationLoader.load(TestInputs.make(file: file, environment: environment, withCredentials: false,
                                                     files: files, purpose: purpose))
    }

    static func problems(_ file: String, files: [String: String] = [:], today: Int64? = nil) -> [String] {
        var inputs = TestInputs.make(file: file, withCredentials: false, files: files)
        inputs.today = today
        return TestInputs.problems(inputs)
    }

    @Test func entriesInheritWhatTheyLeaveOutFromWinpower() throws {
        let loaded = try Self.load(Self.twoServers, files: ["/run/secrets/b": "file-secret\n"])
        let servers = loaded.configuration.servers
        #expect(servers.map(\.name) == ["building-a", "building-b"])
        let a = servers[0], b = servers[1]
        #expect(a.winPower.baseURL == "https://wp-a.example:8081" && a.winPower.username == "admin")
        #expect(a.winPower.password?.reveal() == "base-secret" && a.winPower.timeout == .seconds(20))
        #expect(a.labels == [.init(name: "site", value: "north"), .init(name: "room", value: "2.14")])
        #expect(a.collectionInterval == nil && a.energyFrom == nil && a.winPower.userAgent == nil)
        #expect(b.winPower.username == "operator" && b.winPower.password?.reveal() == "file-secret")
        #expect(b.winPower.passwordFile == "/run/secrets/b" && b.winPower.timeout == .seconds(20))
        #expect(b.collectionInterval == .seconds(10) && b.energyFrom == "winpower" && b.winPower.userAgent == "site-b/1")
        #expect(loaded.configuration.winPower.baseURL == nil, "winpower needs no base_url when servers give one")
    }

    @Test func winpowerOnlyConfigurationsHaveNoServers() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(file: "winpower:\n  timeout: 20s\n"))
        #expect(loaded.configuration.servers.isEmpty && loaded.servers.isEmpty)
        #expect(!loaded.effectiveSettingsTable().contains("servers["))
    }

    @Test func environmentVariablesActAsDefaultsOfEveryEntry() throws {
        let file = "servers:\n  - name: a\n    base_url: https://a.example\n  - name: b\n    base_url: https://b.example\n    username: own\n"
        let loaded = try Self.load(file, environment: ["WINPOWER_EXPORTER_WINPOWER_USERNAME": "env-user",
                                                       "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "env-secret"])
        #expect(loaded.configuration.servers.map { $0.winPower.username } == ["env-user", "own"])
        #expect(loaded.configuration.servers.allSatisfy { $0.winPower.password?.reveal() == "env-secret" })
    }

    @Test(arguments: [
        ("servers:\n  - name: a\n    bse_url: https://a.example\n",
         #"./config.yaml:3:5: unknown key "servers[0].bse_url"; an entry holds name, labels, collection_interval, energy_from, devices, base_url, username, password, password_file, timeout, api_timeout, skip_ssl_verify, refresh_threshold, ca_file, user_agent, area_id, include_sub_area, passthrough_readings, max_readings_per_device, max_readings_per_server, max_devices, max_pages, max_text_bytes; did you mean "base_url"?"#),
        ("servers: a\n", "./config.yaml:1:10: servers: must be a sequence of server entries ('- name: ...'), found a scalar"),
        ("servers:\n  - a\n", "./config.yaml:2:5: servers[0]: must be a mapping with name:, base_url:, ... (the keys of winpower), found a scalar"),
        ("servers:\n  - base_url: https://a.example\n", "./config.yaml:2:5: servers[0].name: is required; every entry of servers needs a unique name"),
        ("servers:\n  - name: a b\n", #"./config.yaml:2:11: servers[0].name: "a b" must be 1 to 64 characters from A-Z, a-z, 0-9, '_', '.' and '-'"#),
        ("servers:\n  - name: a\n  - name: a\n", #"./config.yaml:3:11: servers[1].name: "a" is already the name of servers[0] (./config.yaml:2:11); names must be unique"#),
        ("servers:\n  - name: a\n    timeout: 0s\n", "./config.yaml:3:14: servers[0].timeout: 0s must be greater than 0"),
        ("servers:\n  - name: a\n    api_timeout: 45s\n", "./config.yaml:3:18: servers[0].api_timeout: 45s must not exceed servers[0].timeout (30s)"),
        ("servers:\n  - name: a\n    timeout: 5s\n", "./config.yaml:3:14: servers[0].api_timeout: 10s must not exceed servers[0].timeout (5s)"),
        ("servers:\n  - name: a\n    base_url: ftp://u:pw-in-url@a\n",
         #"./config.yaml:3:15: servers[0].base_url: "ftp://u:******@a" has scheme "ftp"; must be http or https"#),
        ("servers:\n  - name: a\n    skip_ssl_verify: maybe\n", #"./config.yaml:3:22: servers[0].skip_ssl_verify: "maybe" must be true or false"#),
        ("servers:\n  - name: a\n    collection_interval: 500ms\n", "./config.yaml:3:26: servers[0].collection_interval: 500ms is too short; must be at least 1s"),
        ("servers:\n  - name: a\n    user_agent: \"a\\nb\"\n", #"./config.yaml:3:17: servers[0].user_agent: "a\nb" contains a control character; a header value cannot hold one"#),
        ("servers:\n  - name: a\n    labels:\n      server: x\n",
         #"./config.yaml:4:7: servers[0].labels.server: "server" is a label the exporter or Prometheus sets; choose another name (reserved: alarm_code, code, command, configuration, device_id, device_name, device_type, endpoint, error_type, fault_code, firmware_version, handler, instance, job, key, le, method, mode, model, outcome, phase, quantile, reason, result, section, server)"#),
        ("servers:\n  - name: a\n    labels:\n      __x: y\n", #"./config.yaml:4:7: servers[0].labels.__x: "__x" starts with '__', which Prometheus reserves"#),
        ("servers:\n  - name: a\n    labels:\n      1x: y\n", #"./config.yaml:4:7: servers[0].labels.1x: "1x" is not a Prometheus label name; must match [a-zA-Z_][a-zA-Z0-9_]*"#),
        ("servers:\n  - name: a\n    labels:\n      site: ''\n", "./config.yaml:4:13: servers[0].labels.site: must not be empty; Prometheus treats an empty label as no label"),
        ("servers:\n  - name: a\n    labels: north\n", "./config.yaml:3:13: servers[0].labels: must be a mapping of label names to values (site: north), found a scalar"),
        ("servers:\n  - name: a\n    password: x\n    password_file: /p\n", "./config.yaml:3:15: servers[0].password: cannot be combined with servers[0].password_file (file ./config.yaml:4:20); set only one"),
        ("servers:\n  - name: a\n    energy_from: b\n  - name: b\n", #"./config.yaml:3:18: servers[0].energy_from: "b" is the name of another entry, whose totals are its own; energy_from names a server that no longer exists under that name"#),
        ("servers:\n  - name: a\n    energy_from: old\n  - name: b\n    energy_from: old\n", #"./config.yaml:5:18: servers[1].energy_from: "old" is already continued by servers[0] (./config.yaml:3:18); each stored total goes to one entry"#),
    ])
    func entryProblem(entry: String, expected: String) {
        let defaults = "winpower:\n  base_url: https://base.example\n  username: u\n  password: p\n"
        #expect(Self.problems(entry + defaults, files: ["/p": "x"]) == [expected])
    }

    @Test func everyEntryMustEndUpWithAURLAUserAndAPassword() {
        let problems = Self.problems("servers:\n  - name: a\n  - name: b\n    password_file: /missing\n")
        #expect(problems == [
            "./config.yaml:2:5: servers[0].base_url: is required; set it in the entry or, for every entry, as winpower.base_url",
            "./config.yaml:2:5: servers[0].username: is required; set it in the entry or, for every entry, as winpower.username",
            "./config.yaml:2:5: servers[0].password: is required (or password_file); set it in the entry or, for every entry, as winpower.password",
            "./config.yaml:4:20: servers[1].password_file: \"/missing\" does not exist",
            "./config.yaml:3:5: servers[1].base_url: is required; set it in the entry or, for every entry, as winpower.base_url",
            "./config.yaml:3:5: servers[1].username: is required; set it in the entry or, for every entry, as winpower.username",
        ])
        #expect((try? Self.load("servers:\n  - name: a\n", purpose: .demo)) != nil, "demo replaces the servers")
    }

    @Test func checkConfigListsEveryServerWithSourcesAndNoSecret() throws {
        var file = Self.twoServers
        file += "  - name: c\n    base_url: https://monitor:url-secret@wp-c.example\n    password: entry-secret\n"
        let loaded = try Self.load(file, files: ["/run/secrets/b": "file-secret\n"],
                                   environment: ["WINPOWER_EXPORTER_WINPOWER_USERNAME": "env-user"])
        let table = loaded.effectiveSettingsTable()
        for secret in ["base-secret", "file-secret", "entry-secret", "url-secret"] {
            #expect(!table.contains(secret), "\(secret) leaked into check-config")
        }
        #expect(table.contains("https://monitor:******@wp-c.example"))
        let rows = loaded.servers.map { server in
            Dictionary(uniqueKeysWithValues: server.rows.map { ($0.key, "\($0.value) | \($0.source)") })
        }
        #expect(rows[0]["base_url"] == "https://wp-a.example:8081 | file ./config.yaml:7:15")
        #expect(rows[0]["username"] == "env-user | winpower (env WINPOWER_EXPORTER_WINPOWER_USERNAME)")
        #expect(rows[0]["password"] == "****** | winpower (file ./config.yaml:3:13)")
        #expect(rows[0]["timeout"] == "20s | winpower (file ./config.yaml:4:12)")
        #expect(rows[0]["api_timeout"] == "10s | winpower (default)")
        #expect(rows[0]["ca_file"] == "(unset) | default")
        #expect(rows[0]["labels.room"] == "2.14 | file ./config.yaml:10:13")
        #expect(rows[0]["collection_interval"] == "5s | scheduler (default)")
        #expect(rows[1]["password"] == "****** | file /run/secrets/b")
        #expect(rows[1]["password_file"] == "/run/secrets/b | file ./config.yaml:14:20")
        #expect(rows[1]["energy_from"] == "winpower | file ./config.yaml:16:18")
        #expect(rows[2]["password"] == "****** | file ./config.yaml:20:15")
        #expect(table.contains("servers[1] building-b\n  name "))
    }
}

/// The energy migration rule: which entry continues which stored totals.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct EnergyOriginTests {
    static func configuration(_ entries: [(String, String?, String?)], base: String? = "https://wp.example:8081")
        -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        configuration.winPower.baseURL = base
        configuration.servers = entries.map { name, url, from in
            var winPower = ExporterConfiguration.WinPower()
            winPower.baseURL = url ?? base
            return ServerEntry(name: name, winPower: winPower, energyFrom: from)
        }
        return configuration
    }

    @Test func anExplicitEnergyFromWinpowerWins() {
        let configuration = Self.configuration([("a", "https://wp.example:8081", nil), ("b", "https://other", "winpower")])
        #expect(configuration.singleServerEnergyAdopter == "b")
        #expect(configuration.energyOrigin(of: "b") == "winpower" && configuration.energyOrigin(of: "a") == nil)
    }

    @Test func otherwiseTheFirstEntryWithWinpowersBaseURLAdopts() {
        let configuration = Self.configuration([("a", "https://other", nil), ("b", "https://wp.example:8081/", nil),
                                                ("c", nil, nil)])
        #expect(configuration.singleServerEnergyAdopter == "b")
        #expect(configuration.energyOrigin(of: "b") == "winpower" && configuration.energyOrigin(of: "c") == nil)
    }

    @Test func renamesContinueTheOldName() {
        let configuration = Self.configuration([("new-a", "https://a", "old-a"), ("b", "https://b", "b")])
        #expect(configuration.energyOrigin(of: "new-a") == "old-a")
        #expect(configuration.energyOrigin(of: "b") == nil, "energy_from naming the entry itself changes nothing")
        #expect(configuration.singleServerEnergyAdopter == nil, "no entry matches: the old totals stay untouched")
        #expect(Self.configuration([("a", "https://a", nil)], base: nil).singleServerEnergyAdopter == nil)
        #expect(ExporterConfiguration().singleServerEnergyAdopter == nil)
    }
}
