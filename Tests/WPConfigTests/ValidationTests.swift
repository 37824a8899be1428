import Testing
import WPTestThreads
@testable import WPConfig

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ValidationTests {
    /// One bad setting → exactly this problem description.
    @Test(arguments: [
        ("server:\n  prot: 1\n", #"./config.yaml:2:3: unknown key "server.prot"; did you mean "server.port"?"#),
        ("servr:\n  port: 1\n", #"./config.yaml:1:1: unknown section "servr"; allowed: server, winpower, storage, scheduler, energy, logging, push, nut, snmp, servers; did you mean "server"?"#),
        ("winpower:\n  url: https://x.example\n", #"./config.yaml:2:3: unknown key "winpower.url"; did you mean "winpower.base_url"?"#),
        ("server.port: 1\n", "./config.yaml:1:1: server.port: dotted keys are not supported in the file; nest the key under its section"),
        ("server:\n  port: abc\n", #"./config.yaml:2:9: server.port: "abc" must be a whole number"#),
        ("server:\n  port: [1, 2]\n", "./config.yaml:2:9: server.port: must be a single value (integer 0–65535), found a sequence"),
        ("server: 9090\n", "./config.yaml:1:9: server: must be a mapping of keys, found a scalar"),
        ("- a\n- b\n", "./config.yaml:1:1: the configuration file must hold a mapping of sections (server:, winpower:, ...), found a sequence"),
        ("server:\n  port: 65536\n", "./config.yaml:2:9: server.port: 65536 is out of range; must be 0–65535"),
        ("server:\n  read_timeout: 0s\n", "./config.yaml:2:17: server.read_timeout: 0s must be greater than 0"),
        ("server:\n  metrics_path: metrics\n", #"./config.yaml:2:17: server.metrics_path: "metrics" must start with '/'"#),
        ("server:\n  metrics_path: /health\n", #"./config.yaml:2:17: server.metrics_path: "/health" is the path of another endpoint; must differ from /, /health, /-/healthy, /-/ready, /-/reload, /probe, /targets, /status, /status.json, /status/ups, /status/outages.csv, /status/outages.json, /status/history.csv, /status/history.json, /status/events.csv, /status/events.json, /status/style.css, /status/status.js"#),
        ("server:\n  metrics_path: /\n", #"./config.yaml:2:17: server.metrics_path: "/" is the path of another endpoint; must differ from /, /health, /-/healthy, /-/ready, /-/reload, /probe, /targets, /status, /status.json, /status/ups, /status/outages.csv, /status/outages.json, /status/history.csv, /status/history.json, /status/events.csv, /status/events.json, /status/style.css, /status/status.js"#),
        ("server:\n  metrics_path: /a?b\n", #"./config.yaml:2:17: server.metrics_path: "/a?b" contains "?"; a path may hold letters, digits, '/' and -._~!$&'()*+,;=:@%"#),
        ("server:\n  metrics_path: \"/a b\"\n", #"./config.yaml:2:17: server.metrics_path: "/a b" contains " "; a path may hold letters, digits, '/' and -._~!$&'()*+,;=:@%"#),
        ("server:\n  enable_pprof: maybe\n", #"./config.yaml:2:17: server.enable_pprof: "maybe" must be true or false"#),
        ("scheduler:\n  collection_interval: 500ms\n", "./config.yaml:2:24: scheduler.collection_interval: 500ms is too short; must be at least 1s"),
        ("scheduler:\n  collection_interval: 5\n", #"./config.yaml:2:24: scheduler.collection_interval: "5" must be a duration with a unit, e.g. 500ms, 30s, 1m30s, 1h"#),
        ("storage:\n  flush_interval: 100ms\n", "./config.yaml:2:19: storage.flush_interval: 100ms is too short; must be at least 1s"),
        ("push:\n  interval: 0s\n", "./config.yaml:2:13: push.interval: 0s is too short; must be at least 1s"),
        ("winpower:\n  refresh_threshold: 1h\n", "./config.yaml:2:22: winpower.refresh_threshold: 1h must be greater than 0 and less than 1h"),
        ("winpower:\n  refresh_threshold: 0s\n", "./config.yaml:2:22: winpower.refresh_threshold: 0s must be greater than 0 and less than 1h"),
        ("winpower:\n  api_timeout: 45s\n", "./config.yaml:2:16: winpower.api_timeout: 45s must not exceed winpower.timeout (30s)"),
        ("energy:\n  max_gap: 5s\n", "./config.yaml:2:12: energy.max_gap: 5s must be longer than scheduler.collection_interval (5s)"),
        ("storage:\n  file_permissions: 644\n", #"./config.yaml:2:21: storage.file_permissions: "644" must be an octal file mode written with a leading 0, e.g. 0644"#),
        ("storage:\n  file_permissions: 01777\n", "./config.yaml:2:21: storage.file_permissions: 01777 is not a file mode; must be at most 0777"),
        ("storage:\n  file_permissions: 0689\n", #"./config.yaml:2:21: storage.file_permissions: "0689" must be an octal file mode (digits 0-7), e.g. 0644"#),
        ("storage:\n  data_dir: ''\n", "./config.yaml:2:13: storage.data_dir: must not be empty"),
        ("logging:\n  level: verbose\n", #"./config.yaml:2:10: logging.level: "verbose" must be one of debug, info, warn, error"#),
        ("logging:\n  format: text\n", #"./config.yaml:2:11: logging.format: "text" must be one of json, console"#),
        ("logging:\n  output: syslog\n", #"./config.yaml:2:11: logging.output: "syslog" must be one of stdout, stderr, file, both or a path containing '/'"#),
        ("logging:\n  max_size: 0\n", "./config.yaml:2:13: logging.max_size: 0 is out of range; must be 1–1048576"),
        ("logging:\n  max_backups: -1\n", "./config.yaml:2:16: logging.max_backups: -1 is out of range; must be 0–10000"),
        ("winpower:\n  base_url: winpower.example.com\n", #"./config.yaml:2:13: winpower.base_url: "winpower.example.com" is not a URL; must look like https://host[:port]"#),
        ("winpower:\n  base_url: ftp://winpower.example.com\n", #"./config.yaml:2:13: winpower.base_url: "ftp://winpower.example.com" has scheme "ftp"; must be http or https"#),
        ("winpower:\n  base_url: https://\n", #"./config.yaml:2:13: winpower.base_url: "https://" has no host; must look like https://host[:port]"#),
        ("push:\n  url: pushgateway:9091\n", #"./config.yaml:2:8: push.url: "pushgateway:9091" has no scheme; must look like https://host[:port]"#),
        ("winpower:\n  base_url: winpower.example.com:8081\n", #"./config.yaml:2:13: winpower.base_url: "winpower.example.com:8081" has no scheme; must look like https://host[:port]"#),
        ("winpower:\n  base_url: http://winpower.example.com:99999\n", #"./config.yaml:2:13: winpower.base_url: "http://winpower.example.com:99999" has port 99999; must be 1–65535"#),
        ("winpower:\n  base_url: https://winpower.example.com:0/\n", #"./config.yaml:2:13: winpower.base_url: "https://winpower.example.com:0/" has port 0; must be 1–65535"#),
        ("push:\n  url: http://pushgateway:99999\n", #"./config.yaml:2:8: push.url: "http://pushgateway:99999" has port 99999; must be 1–65535"#),
        ("push:\n  job: ''\n", "./config.yaml:2:8: push.job: must not be empty"),
    ])
    func fileProblem(file: String, expected: String) {
        #expect(TestInputs.problems(TestInputs.make(file: file, withCredentials: false, purpose: .demo)) == [expected])
    }

    @Test func environmentAndFlagProblemsNameTheirSource() {
        let problems = TestInputs.problems(TestInputs.make(
            flags: [("--port", "http"), ("--sync-write", "yes")],
            environment: ["WINPOWER_EXPORTER_SCHEDULER_COLLECTION_INTERVAL": "fast"]))
        #expect(problems == [
            #"env WINPOWER_EXPORTER_SCHEDULER_COLLECTION_INTERVAL: scheduler.collection_interval: "fast" must be a duration with a unit, e.g. 500ms, 30s, 1m30s, 1h"#,
            #"flag --port: server.port: "http" must be a whole number"#,
            #"flag --sync-write: storage.sync_write: "yes" must be true or false"#,
        ])
    }

    @Test func requiredKeysForServerButNotDemo() {
        let server = TestInputs.problems(TestInputs.make(withCredentials: false))
        #expect(server == [
            "winpower.base_url: is required by `server`; set it in the configuration file, with WINPOWER_EXPORTER_WINPOWER_BASE_URL or with --winpower.base_url",
            "winpower.username: is required by `server`; set it in the configuration file, with WINPOWER_EXPORTER_WINPOWER_USERNAME or with --winpower.username",
            "winpower.password: is required by `server` (or winpower.password_file); set it in the configuration file, with WINPOWER_EXPORTER_WINPOWER_PASSWORD or with --winpower.password",
        ])
        #expect(TestInputs.problems(TestInputs.make(withCredentials: false, purpose: .demo)).isEmpty)
        // The demo's WinPower is its own simulator: an empty password file (compose's demo) is not read.
        let emptySecret = ["WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE": "/run/secrets/winpower_password"]
        #expect(TestInputs.problems(TestInputs.make(environment: emptySecret, withCredentials: false,
                                                    files: ["/run/secrets/winpower_password": ""], purpose: .demo)).isEmpty)
        #expect(TestInputs.problems(TestInputs.make(environment: emptySecret, withCredentials: false,
                                                    files: ["/run/secrets/winpower_password": ""])).contains { $0.contains("is empty") })
        let empty = TestInputs.problems(TestInputs.make(flags: [("--winpower.username", "")]))
        #expect(empty.count == 1 && empty[0].hasPrefix("winpower.username: is required"))
    }

    @Test func everyProblemIsReportedAtOnce() {
        let problems = TestInputs.problems(TestInputs.make(
            file: "server:\n  port: 70000\n  prot: 1\nlogging:\n  level: loud\n",
            flags: [("--scheduler.collection_interval", "10ms")],
            environment: ["WINPOWER_EXPORTER_WINPOWER_API_TIMEOUT": "1m"], withCredentials: false))
        #expect(problems.count == 8, "\(problems)")
        for fragment in ["server.port", "server.prot", "logging.level", "collection_interval", "api_timeout",
                         "base_url", "username", "password"] {
            #expect(problems.contains { $0.contains(fragment) }, "\(fragment)")
        }
    }

    @Test func referencedFilesMustBeReadable() {
        let problems = TestInputs.problems(TestInputs.make(
            flags: [("--winpower.ca_file", "/etc/ca.pem"), ("--server.web_config_file", "/etc/web.yml")],
            environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE": "/run/secrets/none",
                          "WINPOWER_EXPORTER_WINPOWER_PASSWORD": ""]))
        #expect(problems == [
            #"env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: "/run/secrets/none" does not exist"#,
            #"flag --winpower.ca_file: winpower.ca_file: "/etc/ca.pem" does not exist"#,
            #"flag --server.web_config_file: server.web_config_file: "/etc/web.yml" does not exist"#,
        ])
        let unreadable = FileAccess(read: { path in
            path.hasSuffix("config.yaml") ? .failure(.notFound) : .failure(.unreadable("permission denied"))
        }, permissions: { _ in nil })
        var inputs = TestInputs.make(flags: [("--winpower.ca_file", "/etc/ca.pem")])
        inputs.files = unreadable
        #expect(TestInputs.problems(inputs) == [
            #"flag --winpower.ca_file: winpower.ca_file: "/etc/ca.pem" cannot be read: permission denied"#,
        ])
    }

    @Test func passwordFileReplacesThePassword() throws {
        var environment = ["WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE": "/run/secrets/wp"]
        environment["WINPOWER_EXPORTER_WINPOWER_PASSWORD"] = ""
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            environment: environment, files: ["/run/secrets/wp": "from-file\n", "/etc/ca.pem": "PEM"]))
        #expect(loaded.configuration.winPower.password?.reveal() == "from-file")
        #expect(loaded.configuration.winPower.passwordFile == "/run/secrets/wp")
        #expect(loaded.settings["winpower.password"]?.source == .file(path: "/run/secrets/wp", position: nil))
        let empty = TestInputs.problems(TestInputs.make(environment: environment, files: ["/run/secrets/wp": "\n"]))
        #expect(empty == [#"env WINPOWER_EXPORTER_WINPOWER_PASSWORD_FILE: winpower.password_file: "/run/secrets/wp" is empty"#])
    }

    @Test func passwordAndPasswordFileAreExclusive() {
        let problems = TestInputs.problems(TestInputs.make(
            flags: [("--winpower.password_file", "/run/secrets/wp")], files: ["/run/secrets/wp": "x"]))
        #expect(problems == [
            "env WINPOWER_EXPORTER_WINPOWER_PASSWORD: winpower.password: cannot be combined with winpower.password_file (flag --winpower.password_file); set only one",
        ])
    }

    @Test func secretsNeverAppearInProblemsOrWarnings() throws {
        let secret = "hunter2-very-secret"
        let inputs = TestInputs.make(
            file: "winpower:\n  pasword: \(secret)\n  password: \(secret)\npush:\n  password: \(secret)\n",
            flags: [("--winpower.password_file", "/run/pw"), ("--push.password", secret)],
            environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": secret, "WINPOWER_EXPORTER_PUSH_PASWORD": secret],
            modes: ["./config.yaml": 0o644])
        do {
            _ = try ConfigurationLoader.load(inputs)
            Issue.record("expected problems")
        } catch {
            let text = error.description + error.warnings.map(\.description).joined()
            #expect(!error.problems.isEmpty)
            #expect(!text.contains(secret), "\(text)")
        }
        let loaded = try ConfigurationLoader.load(TestInputs.make(flags: [("--push.password", secret)]))
        #expect(!loaded.effectiveSettingsTable().contains(secret))
        #expect(!loaded.effectiveSettingsTable().contains("hunter2"))
        #expect(!"\(loaded.configuration)".contains(secret))
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct URLRedactionTests {
    @Test(arguments: [
        ("https://user:pw-secret@h.example:8081/x", "https://user:******@h.example:8081/x"),
        ("https://user@h.example", "https://user@h.example"),
        ("https://h.example/a@b:c", "https://h.example/a@b:c"),
        ("no scheme", "no scheme"),
    ])
    func passwordsInURLsAreMasked(url: String, shown: String) {
        #expect(URLRedaction.redact(url) == shown)
    }

    @Test func urlPasswordsNeverReachMessagesOrTheTable() throws {
        let problems = TestInputs.problems(TestInputs.make(flags: [("--push.url", "ftp://u:pw-secret@h")]))
        #expect(problems == [#"flag --push.url: push.url: "ftp://u:******@h" has scheme "ftp"; must be http or https"#])
        let loaded = try ConfigurationLoader.load(TestInputs.make(flags: [("--push.url", "https://u:pw-secret@h")]))
        #expect(loaded.configuration.push.url == "https://u:pw-secret@h")
        #expect(!loaded.effectiveSettingsTable().contains("pw-secret"))
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct WarningTests {
    @Test func keysWithoutMeaningAreAcceptedWithAWarning() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            file: "server:\n  enable_pprof: true\nlogging:\n  enable_stacktrace: true\n"))
        #expect(loaded.configuration.server.enablePprof)
        #expect(loaded.configuration.logging.enableStacktrace)
        #expect(loaded.warnings.map(\.description) == [
            "./config.yaml:2:17: server.enable_pprof: has no effect: Go's pprof profiler does not exist in this implementation; process metrics are on /metrics",
        ])
    }

    @Test func unknownEnvironmentVariablesGetASuggestion() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            environment: ["WINPOWER_EXPORTER_LOGGING_LEVLE": "debug", "WINPOWER_EXPORTER_XYZZY": "1", "OTHER_VAR": "1"]))
        #expect(loaded.warnings.map(\.description) == [
            "env WINPOWER_EXPORTER_LOGGING_LEVLE: unknown variable, ignored; did you mean WINPOWER_EXPORTER_LOGGING_LEVEL?",
            "env WINPOWER_EXPORTER_XYZZY: unknown variable, ignored",
        ])
    }

    @Test(arguments: [(0o644, true), (0o640, true), (0o604, true), (0o600, false), (0o400, false)])
    func worldReadableFileWithPasswordIsWarnedAbout(mode: Int, warned: Bool) throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            file: "winpower:\n  password: x\n", modes: ["./config.yaml": mode]))
        let expected = "file ./config.yaml: winpower.password: the file holds a password and is readable by other users "
            + "(mode 0\(String(mode, radix: 8))); run chmod 600 ./config.yaml"
        #expect(loaded.warnings.map(\.description) == (warned ? [expected] : []))
    }

    @Test func skippedCertificateChecksAreWarnedAboutOncePerServer() throws {
        let reason = "is true: the WinPower server's TLS certificate is not checked, so anyone on the network path "
            + "can pose as the server, read its password and forge readings; set ca_file to its certificate instead"
        let plain = try ConfigurationLoader.load(TestInputs.make(file: "winpower:\n  skip_ssl_verify: true\n"))
        #expect(plain.warnings.map(\.description) == ["./config.yaml:2:20: winpower.skip_ssl_verify: \(reason)"])
        let byFlag = try ConfigurationLoader.load(TestInputs.make(flags: [("--skip-ssl-verify", "true")]))
        #expect(byFlag.warnings.map(\.description) == ["flag --skip-ssl-verify: winpower.skip_ssl_verify: \(reason)"])
        // Two entries inherit it, the third turns it off: two warnings, one per server using it.
        let servers = try ConfigurationLoader.load(TestInputs.make(file: """
            winpower:
              skip_ssl_verify: true
            servers:
              - name: a
                base_url: https://a
              - name: b
                base_url: https://b
                skip_ssl_verify: false
              - name: c
                base_url: https://c
            """))
        #expect(servers.warnings.map(\.description) == [
            "./config.yaml:2:20: servers[0].skip_ssl_verify: \(reason)",
            "./config.yaml:2:20: servers[2].skip_ssl_verify: \(reason)",
        ])
        #expect(try ConfigurationLoader.load(TestInputs.make(file: "winpower:\n  skip_ssl_verify: false\n")).warnings.isEmpty)
    }

    @Test func readableFileWithoutPasswordIsNotWarnedAbout() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(file: "server:\n  port: 1\n", modes: ["./config.yaml": 0o644]))
        #expect(loaded.warnings.isEmpty)
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct TypedConfigurationTests {
    @Test func fullSeedExampleLoads() throws {
        let file = """
            server:
              port: 9090
              host: "0.0.0.0"
              read_timeout: 30s
              write_timeout: 45s
              enable_pprof: false
            winpower:
              base_url: "https://winpower.example.com"
              username: "admin"
              password: "secret"
              timeout: 30s
              api_timeout: 10s
              skip_ssl_verify: false
              refresh_threshold: 5m
            storage:
              data_dir: "./data"
              file_permissions: 0600
            scheduler:
              collection_interval: 10s
              graceful_shutdown_timeout: 5s
            logging:
              level: "warn"
              format: "console"
              output: "both"
              max_size: 100
              max_age: 7
              max_backups: 3
              compress: true
              enable_caller: true
              enable_stacktrace: false
            """
        let loaded = try ConfigurationLoader.load(TestInputs.make(file: file, withCredentials: false))
        let config = loaded.configuration
        #expect(config.server.writeTimeout == .seconds(45))
        #expect(config.winPower.baseURL == "https://winpower.example.com")
        #expect(config.winPower.password == Secret("secret"))
        #expect(config.storage.filePermissions == 0o600)
        #expect(config.scheduler.collectionInterval == .seconds(10))
        #expect(config.logging.level == .warn)
        #expect(config.logging.format == .console)
        #expect(config.logging.output == .both("./logs/wpexporter.log"))
        #expect(config.logging.enableCaller)
        #expect(loaded.settings.count == ConfigKey.all.filter { $0.defaultValue != nil }.count + 3)
    }

    @Test(arguments: [
        ("stdout", ExporterConfiguration.Logging.Output.stdout), ("stderr", .stderr),
        ("file", .file("/var/log/wp.log")), ("both", .both("/var/log/wp.log")), ("./wp.log", .file("./wp.log")),
    ])
    func loggingOutput(output: String, expected: ExporterConfiguration.Logging.Output) throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            flags: [("--logging.output", output), ("--logging.file_path", "/var/log/wp.log")]))
        #expect(loaded.configuration.logging.output == expected)
    }

    @Test func everyKeyHasAFlagAndAnEnvironmentVariableThatSetIt() throws {
        let samples: [String: String] = [
            "winpower.base_url": "https://h.example", "push.url": "https://p.example", "server.metrics_path": "/m",
            "winpower.password_file": "/pw", "winpower.ca_file": "/ca", "server.web_config_file": "/web",
            "energy.max_power_watts": "5000", "nut.listen": "127.0.0.1:3493", "nut.default_ups": "ups-1",
            "energy.tariffs.currency": "CNY", "energy.tariffs.flat_price": "0.5", "energy.tariffs.peak_price": "1",
            "energy.tariffs.peak_hours": "08:00-11:00", "energy.tariffs.valley_price": "0.2",
            "energy.tariffs.valley_hours": "23:00-07:00",
        ]
        for key in ConfigKey.all {
            let text = samples[key.name] ?? key.defaultValue?.formatted(as: key.type) ?? "text"
            let files = ["/pw": "x", "/ca": "x", "/web": "x"]
            // A tariff key is set with the others it needs (a price needs a currency, …), from a file.
            let companions = key.name.hasPrefix("energy.tariffs.")
                ? "energy:\n  tariffs:\n" + ["currency", "flat_price", "peak_price", "peak_hours", "valley_price", "valley_hours"]
                    .filter { "energy.tariffs." + $0 != key.name }
                    .map { "    \($0): \"\(samples["energy.tariffs." + $0] ?? "")\"\n" }.joined()
                : nil
            let viaFlag = try ConfigurationLoader.load(TestInputs.make(
                file: companions, flags: [(key.flag, text)], withCredentials: false, files: files, purpose: .demo))
            #expect(viaFlag.settings[key.name]?.source == .flag(key.flag) || key.name == "winpower.password", "\(key.name)")
            let viaEnv = try ConfigurationLoader.load(TestInputs.make(
                file: companions, environment: [key.environmentVariable: text], withCredentials: false, files: files, purpose: .demo))
            let source = viaEnv.settings[key.name]?.source
            #expect(source == .environment(key.environmentVariable) || key.name == "winpower.password", "\(key.name)")
        }
    }
}
