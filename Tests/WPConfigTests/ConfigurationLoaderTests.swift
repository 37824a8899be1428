import Testing
import WPTestThreads
@testable import WPConfig

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct PrecedenceTests {
    /// Which layers set `server.port` → which value and source win.
    @Test(arguments: [
        ([String](), 9090, "default"),
        (["file"], 1001, "file ./config.yaml:2:9"),
        (["env"], 1002, "env WINPOWER_EXPORTER_SERVER_PORT"),
        (["flag"], 1003, "flag --server.port"),
        (["file", "env"], 1002, "env WINPOWER_EXPORTER_SERVER_PORT"),
        (["file", "flag"], 1003, "flag --server.port"),
        (["env", "flag"], 1003, "flag --server.port"),
        (["file", "env", "flag"], 1003, "flag --server.port"),
    ])
    func everySourcePair(layers: [String], port: Int, source: String) throws {
        let inputs = TestInputs.make(
            file: layers.contains("file") ? "server:\n  port: 1001\n" : nil,
            flags: layers.contains("flag") ? [("--server.port", "1003")] : [],
            environment: layers.contains("env") ? ["WINPOWER_EXPORTER_SERVER_PORT": "1002"] : [:])
        let loaded = try ConfigurationLoader.load(inputs)
        #expect(loaded.configuration.server.port == port)
        #expect(loaded.settings["server.port"]?.source.description == source)
    }

    @Test func precedenceIsPerKey() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            file: "server:\n  port: 1001\nlogging:\n  level: debug\n  format: console\n",
            flags: [("--logging.format", "json")],
            environment: ["WINPOWER_EXPORTER_SERVER_PORT": "1002"]))
        #expect(loaded.configuration.server.port == 1002)
        #expect(loaded.configuration.logging.level == .debug)
        #expect(loaded.configuration.logging.format == .json)
        #expect(loaded.settings["logging.level"]?.source == .file(path: "./config.yaml", position: SourcePosition(line: 4, column: 10)))
    }

    @Test func laterFlagsWinAndEmptyEnvironmentIsUnset() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            file: "server:\n  port: 1001\n",
            flags: [("--port", "1"), ("--server.port", "2"), ("--port", "3")],
            environment: ["WINPOWER_EXPORTER_SERVER_HOST": ""]))
        #expect(loaded.configuration.server.port == 3)
        #expect(loaded.configuration.server.host == "0.0.0.0")
    }

    @Test(arguments: [
        ("WINPOWER_EXPORTER_WINPOWER_URL", "https://alias.example", "winpower.base_url", "https://alias.example"),
        ("WINPOWER_EXPORTER_PORT", "9999", "server.port", "9999"),
        ("WINPOWER_EXPORTER_SKIP_SSL_VERIFY", "true", "winpower.skip_ssl_verify", "true"),
    ])
    func environmentAliases(variable: String, value: String, key: String, expected: String) throws {
        var environment = TestInputs.credentials
        environment.removeValue(forKey: "WINPOWER_EXPORTER_WINPOWER_BASE_URL")
        environment["WINPOWER_EXPORTER_WINPOWER_URL"] = "https://other.example"
        environment[variable] = value
        let loaded = try ConfigurationLoader.load(TestInputs.make(environment: environment, withCredentials: false))
        let setting = try #require(loaded.settings[key])
        #expect(setting.value.formatted(as: try #require(ConfigKey.named(key)).type) == expected)
        #expect(setting.source == .environment(variable))
        // Only skip_ssl_verify's own warning: an alias is not warned about.
        #expect(loaded.warnings.map(\.key) == (key == "winpower.skip_ssl_verify" ? [key] : []))
    }

    @Test func canonicalVariableBeatsAliasWithAWarning() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            environment: ["WINPOWER_EXPORTER_PORT": "1", "WINPOWER_EXPORTER_SERVER_PORT": "2"]))
        #expect(loaded.configuration.server.port == 2)
        #expect(loaded.warnings.map(\.description) == [
            "env WINPOWER_EXPORTER_PORT: server.port: ignored because WINPOWER_EXPORTER_SERVER_PORT is also set and takes precedence",
        ])
    }

    @Test(arguments: [
        ("--winpower.url", "https://flag.example", "winpower.base_url", "https://flag.example"),
        ("--winpower.username", "operator", "winpower.username", "operator"),
        ("--winpower.password", "flagpass", "winpower.password", "******"),
        ("--port", "8000", "server.port", "8000"),
        ("--log-level", "error", "logging.level", "error"),
        ("--skip-ssl-verify", "true", "winpower.skip_ssl_verify", "true"),
        ("--data-dir", "/var/lib/wp", "storage.data_dir", "/var/lib/wp"),
        ("--sync-write", "false", "storage.sync_write", "false"),
    ])
    func flagAliases(flag: String, value: String, key: String, expected: String) throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(flags: [(flag, value)]))
        let setting = try #require(loaded.settings[key])
        #expect(setting.value.formatted(as: try #require(ConfigKey.named(key)).type) == expected)
        #expect(setting.source == .flag(flag))
    }

    @Test func passwordFlagReachesTheConfiguration() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(flags: [("--winpower.password", "flagpass")]))
        #expect(loaded.configuration.winPower.password?.reveal() == "flagpass")
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DiscoveryTests {
    @Test(arguments: [
        "./config.yaml", "./config/config.yaml", "/home/u/.config/winpower-exporter/config.yaml",
        "/etc/winpower-exporter/config.yaml",
    ])
    func firstExistingFileIsUsed(path: String) throws {
        let order = ["./config.yaml", "./config/config.yaml", "/home/u/.config/winpower-exporter/config.yaml",
                     "/etc/winpower-exporter/config.yaml"]
        var files: [String: String] = [:]
        for (index, candidate) in order.enumerated() where index >= order.firstIndex(of: path) ?? 0 {
            files[candidate] = "server:\n  port: \(2000 + index)\n"
        }
        let loaded = try ConfigurationLoader.load(TestInputs.make(environment: ["HOME": "/home/u"], files: files))
        #expect(loaded.configurationFile == path)
        #expect(loaded.configuration.server.port == 2000 + (order.firstIndex(of: path) ?? 0))
    }

    @Test func noFileMeansDefaults() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make())
        #expect(loaded.configurationFile == nil)
        var expected = ExporterConfiguration()
        expected.winPower.baseURL = "https://winpower.example.com"
        expected.winPower.username = "admin"
        expected.winPower.password = Secret("hunter2")
        #expect(loaded.configuration == expected)
    }

    @Test func explicitPathWinsOverDiscovery() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(
            file: "server:\n  port: 1111\n", configPath: "/srv/wp.yaml", files: ["/srv/wp.yaml": "server:\n  port: 2222\n"]))
        #expect(loaded.configurationFile == "/srv/wp.yaml")
        #expect(loaded.configuration.server.port == 2222)
    }

    @Test func explicitPathThatDoesNotExistIsAnError() {
        #expect(TestInputs.problems(TestInputs.make(file: "server:\n  port: 1\n", configPath: "/nope.yaml")) == [
            "flag --config: configuration file \"/nope.yaml\" does not exist",
        ])
    }

    @Test func aFileThatCannotBeReadIsOneProblemNotOnePerRequiredKey() {
        #expect(TestInputs.problems(TestInputs.make(configPath: "/nope.yaml", withCredentials: false)) == [
            "flag --config: configuration file \"/nope.yaml\" does not exist",
        ])
        var inputs = TestInputs.make(configPath: "/srv/wp.yaml", withCredentials: false)
        inputs.files = FileAccess(read: { _ in .failure(.unreadable("permission denied")) }, permissions: { _ in nil })
        do {
            _ = try ConfigurationLoader.load(inputs)
            Issue.record("an unreadable file loaded")
        } catch {
            #expect(error.problems.map(\.description) == [
                "flag --config: configuration file \"/srv/wp.yaml\" cannot be read: permission denied",
            ])
            #expect(error.configurationFile == nil)
            #expect(error.unreadFile == "/srv/wp.yaml")
        }
    }

    @Test func unreadableDiscoveredFileIsAnError() {
        let files = FileAccess(read: { path in path == "./config.yaml" ? .failure(.unreadable("permission denied")) : .failure(.notFound) },
                               permissions: { _ in nil })
        var inputs = TestInputs.make()
        inputs.files = files
        #expect(TestInputs.problems(inputs) == [
            "configuration file \"./config.yaml\" exists but cannot be read: permission denied",
        ])
    }

    @Test func syntaxErrorsCarryFileLineAndColumn() {
        #expect(TestInputs.problems(TestInputs.make(file: "server:\n  port: &p 1\n")) == [
            "./config.yaml:2:9: anchors ('&') are not supported; repeat the value instead",
        ])
    }

    /// The credentials may be in the part of the file that did not parse: the syntax error is
    /// the whole answer, with no "is required" errors after it.
    @Test func aSyntaxErrorIsNotFollowedByRequiredErrors() {
        let broken = "winpower:\n  base_url: \"http://ups:8081\n  username: admin\n"
        let problems = TestInputs.problems(TestInputs.make(file: broken, withCredentials: false))
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("./config.yaml:2:") == true, "\(problems)")
        #expect(!problems.contains { $0.contains("is required") })
        // Without a file error, missing credentials are still reported.
        #expect(TestInputs.problems(TestInputs.make(file: "server:\n  port: 9100\n", withCredentials: false))
            .contains { $0.contains("winpower.base_url: is required by `server`") })
    }

    @Test func emptyAndNullFilesAreFine() throws {
        for text in ["", "# nothing\n", "~\n", "server:\nlogging: ~\n"] {
            let loaded = try ConfigurationLoader.load(TestInputs.make(file: text))
            #expect(loaded.configuration.server.port == 9090)
        }
    }
}
