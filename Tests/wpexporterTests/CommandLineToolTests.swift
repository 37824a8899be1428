import Synchronization
import Testing
import WPTestThreads
import WPConfig
@testable import WPExporter
@testable import wpexporter

/// Collects what a command writes, and what the hooks were called with.
final class Recorder: Sendable {
    private let state = Mutex<(out: String, err: String, calls: [String], loaded: [LoadedConfiguration])>(("", "", [], []))

    var out: String { state.withLock { $0.out } }
    var err: String { state.withLock { $0.err } }
    var calls: [String] { state.withLock { $0.calls } }
    var loaded: [LoadedConfiguration] { state.withLock { $0.loaded } }

    var output: TerminalOutput {
        TerminalOutput(standardOutput: { text in self.state.withLock { $0.out += text } },
                       standardError: { text in self.state.withLock { $0.err += text } })
    }

    func hooks(failWith error: (any Error & Sendable)? = nil) -> RunHooks {
        RunHooks(server: { loaded in
            self.state.withLock { $0.calls.append("server"); $0.loaded.append(loaded) }
            if let error { throw error }
        }, demo: { loaded, _ in
            self.state.withLock { $0.calls.append("demo"); $0.loaded.append(loaded) }
            if let error { throw error }
        }, simulate: { options in
            self.state.withLock { $0.calls.append("simulate \(options.devices)") }
            if let error { throw error }
        })
    }
}

private let credentials = [
    "WINPOWER_EXPORTER_WINPOWER_BASE_URL": "https://winpower.example.com",
    "WINPOWER_EXPORTER_WINPOWER_USERNAME": "admin",
    "WINPOWER_EXPORTER_WINPOWER_PASSWORD": "hunter2-secret",
]

private func tool(_ recorder: Recorder, environment: [String: String] = credentials, files: [String: String] = [:],
                  hookError: (any Error & Sendable)? = nil) -> CommandLineTool {
    CommandLineTool(environment: environment, files: .inMemory(files), output: recorder.output,
                    hooks: recorder.hooks(failWith: hookError),
                    buildInfo: BuildInfo(version: "0.1.0", swift: "6.x", platform: "linux", arch: "x86_64",
                                         buildDate: "2026-01-02T03:04:05", gitCommit: "abc123"))
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CommandLineToolTests {
    @Test func checkConfigPrintsEveryValueWithItsSourceAndMasksSecrets() async {
        let recorder = Recorder()
        let status = await tool(recorder, files: ["/c.yaml": "server:\n  port: 9100\npush:\n  password: pushpw-secret\n"])
            .run(["check-config", "-c", "/c.yaml", "--log-level", "debug"])
        #expect(status == 0)
        let out = recorder.out
        #expect(out.hasPrefix("configuration file: /c.yaml\n"))
        #expect(out.contains("server.port                          9100"))
        #expect(out.contains("file /c.yaml:2:9"))
        #expect(out.contains("logging.level                        debug"))
        #expect(out.contains("flag --log-level"))
        #expect(out.contains("env WINPOWER_EXPORTER_WINPOWER_PASSWORD"))
        #expect(out.contains("winpower.password                    ******"))
        #expect(out.contains("push.password                        ******"))
        #expect(out.hasSuffix("configuration is valid\n"))
        for secret in ["hunter2-secret", "pushpw-secret"] {
            #expect(!out.contains(secret) && !recorder.err.contains(secret))
        }
        #expect(recorder.calls.isEmpty)
    }

    @Test func checkConfigListsEveryServerAndNoSecret() async {
        let file = """
            servers:
              - name: building-a
                base_url: https://monitor:url-secret@wp-a.example:8081
                labels:
                  site: north
              - name: building-b
                base_url: https://wp-b.example:8081
                password: entry-secret

            """
        let recorder = Recorder()
        #expect(await tool(recorder, files: ["/c.yaml": file]).run(["check-config", "-c", "/c.yaml"]) == 0)
        let out = recorder.out
        #expect(out.contains("servers[0] building-a\n"))
        #expect(out.contains("https://monitor:******@wp-a.example:8081"))
        #expect(out.contains("winpower (env WINPOWER_EXPORTER_WINPOWER_PASSWORD)"))
        #expect(out.contains("servers[1] building-b\n"))
        #expect(out.hasSuffix("configuration is valid\n"))
        let broken = Recorder()
        let invalid = file.replacing("name: building-b", with: "name: building-a")
            .replacing("https://wp-b", with: "ftp://u:url-secret@wp-b")
        #expect(await tool(broken, files: ["/c.yaml": invalid]).run(["check-config", "-c", "/c.yaml"]) == 78)
        #expect(broken.err.contains("servers[1].name: \"building-a\" is already the name of servers[0]"))
        #expect(broken.err.contains("servers[1].base_url: \"ftp://u:******@wp-b.example:8081\" has scheme"))
        for secret in ["hunter2-secret", "url-secret", "entry-secret"] {
            #expect(!out.contains(secret) && !recorder.err.contains(secret) && !broken.err.contains(secret))
        }
    }

    @Test func portZeroFromTheFileIsValidForCheckConfigAndServerAlike() async {
        let files = ["/c.yaml": "server:\n  port: 0\n"]
        let check = Recorder()
        #expect(await tool(check, files: files).run(["check-config", "-c", "/c.yaml"]) == 0)
        #expect(check.out.contains("server.port                          0"))
        let server = Recorder()
        #expect(await tool(server, files: files).run(["server", "-c", "/c.yaml"]) == 0)
        #expect(server.loaded.first?.configuration.server.port == 0)
    }

    @Test func aStrayConfigYamlShadowingConfigConfigYamlIsNamedInWarningsAndErrors() async {
        let files = ["./config.yaml": "server:\n  port: 70000\n", "./config/config.yaml": "server:\n  port: 9100\n"]
        let recorder = Recorder()
        #expect(await tool(recorder, files: files).run(["check-config"]) == 78)
        #expect(recorder.err.hasPrefix("configuration file: ./config.yaml\n"))
        #expect(recorder.err.contains("warning: file ./config/config.yaml: not read: ./config.yaml comes first in the search order"))
        #expect(recorder.err.contains("error: ./config.yaml:2:9: server.port: 70000 is out of range"))
        let none = Recorder()
        #expect(await tool(none).run(["check-config", "--port", "70000"]) == 78)
        #expect(none.err.hasPrefix("configuration file: none found (searched ./config.yaml, ./config/config.yaml, "
                                   + "/etc/winpower-exporter/config.yaml); defaults, environment and flags only\n"), "\(none.err)")
        let home = Recorder()
        #expect(await tool(home, environment: ["HOME": "/home/op"]).run(["check-config", "--port", "70000"]) == 78)
        #expect(home.err.hasPrefix("configuration file: none found (searched ./config.yaml, ./config/config.yaml, "
                                   + "/home/op/.config/winpower-exporter/config.yaml, /etc/winpower-exporter/config.yaml)"), "\(home.err)")
    }

    @Test func aMissingConfigurationFileIsNamedAndCountedOnce() async {
        let recorder = Recorder()
        #expect(await tool(recorder, environment: [:]).run(["check-config", "-c", "/nope.yaml"]) == 78)
        #expect(recorder.err.hasPrefix("configuration file: /nope.yaml (not read)\n"), "\(recorder.err)")
        #expect(recorder.err.contains("error: flag --config: configuration file \"/nope.yaml\" does not exist\n"))
        #expect(recorder.err.hasSuffix("configuration is invalid: 1 problem\n"))
    }

    @Test func checkConfigListsEveryProblemAndExits78() async {
        let recorder = Recorder()
        let status = await tool(recorder, environment: ["WINPOWER_EXPORTER_WINPOWER_PASSWORD": "hunter2-secret"],
                                files: ["./config.yaml": "server:\n  port: 70000\nwinpower:\n  password: also-secret\n"])
            .run(["check-config", "--scheduler.collection_interval=1ms"])
        #expect(status == 78)
        #expect(recorder.out.isEmpty)
        #expect(recorder.err == """
            configuration file: ./config.yaml
            error: ./config.yaml:2:9: server.port: 70000 is out of range; must be 0–65535
            error: flag --scheduler.collection_interval: scheduler.collection_interval: 1ms is too short; must be at least 1s
            error: winpower.base_url: is required by `server`; set it in the configuration file, with WINPOWER_EXPORTER_WINPOWER_BASE_URL or with --winpower.base_url
            error: winpower.username: is required by `server`; set it in the configuration file, with WINPOWER_EXPORTER_WINPOWER_USERNAME or with --winpower.username
            configuration is invalid: 4 problems

            """)
    }

    @Test func checkConfigValidatesTheWebConfigurationFile() async {
        let recorder = Recorder()
        let web = """
            tls_server_config:
              cert_file: /missing.crt
              key_file: /missing.key
            basic_auth_users:
              prometheus: plain-text-secret
            http_server_confg:
              headers:
                X-Frame-Options: deny

            """
        let status = await tool(recorder, files: ["/web.yml": web])
            .run(["check-config", "--web.config.file", "/web.yml"])
        #expect(status == 78)
        #expect(recorder.out.isEmpty)
        let err = recorder.err
        #expect(err.contains("/web.yml:2:"), "names the file and line of the certificate")
        #expect(err.contains("/web.yml:3:"), "and of the key")
        #expect(err.contains("/web.yml:5:"), "and of the password hash")
        #expect(err.contains("http_server_confg"))
        #expect(err.contains("did you mean \"http_server_config\""))
        #expect(!err.contains("plain-text-secret"), "a hash value is never echoed")
        #expect(recorder.calls.isEmpty)
    }

    @Test func serverValidatesThenCallsItsHook() async throws {
        let recorder = Recorder()
        let status = await tool(recorder, environment: credentials.merging(["WINPOWER_EXPORTER_NOPE": "1"]) { a, _ in a })
            .run(["server", "--port=9200"])
        #expect(status == 0)
        #expect(recorder.calls == ["server"])
        let loaded = try #require(recorder.loaded.first)
        #expect(loaded.configuration.server.port == 9200)
        #expect(loaded.configuration.winPower.password?.reveal() == "hunter2-secret")
        #expect(recorder.err == "warning: env WINPOWER_EXPORTER_NOPE: unknown variable, ignored\n")
    }

    @Test func serverDoesNotStartWithAnInvalidConfiguration() async {
        let recorder = Recorder()
        let status = await tool(recorder, environment: [:]).run(["server"])
        #expect(status == 78)
        #expect(recorder.calls.isEmpty)
        #expect(recorder.err.contains("winpower.base_url: is required"))
    }

    @Test func demoNeedsNoCredentials() async {
        let recorder = Recorder()
        #expect(await tool(recorder, environment: [:]).run(["demo"]) == 0)
        #expect(recorder.calls == ["demo"])
    }

    @Test func simulateCallsItsHook() async {
        let recorder = Recorder()
        #expect(await tool(recorder).run(["simulate", "--devices", "5"]) == 0)
        #expect(recorder.calls == ["simulate 5"])
    }

    @Test(arguments: ["runtime", "usage"])
    func hookErrorsMapToExitCodes(kind: String) async {
        let error: any Error & Sendable = kind == "runtime"
            ? HealthcheckFailure.invalidConfiguration("listen failed") : UsageError(command: "simulate", message: "unknown fault \"x\"")
        let recorder = Recorder()
        let status = await tool(recorder, hookError: error).run(["simulate"])
        #expect(status == (kind == "runtime" ? 1 : 64))
        #expect(recorder.err == (kind == "runtime" ? "healthcheck: configuration is invalid: listen failed\n"
            : "wpexporter simulate: unknown fault \"x\"\nRun 'wpexporter simulate --help' for usage.\n"))
    }

    @Test func usageErrorsExit64WithoutRunningAnything() async {
        let recorder = Recorder()
        #expect(await tool(recorder).run(["server", "--winpower.baseurl=x"]) == 64)
        #expect(recorder.err == "wpexporter server: unknown flag --winpower.baseurl; did you mean --winpower.base_url?\n"
                + "Run 'wpexporter server --help' for usage.\n")
        #expect(recorder.calls.isEmpty)
    }

    @Test func versionAsTextAndJSON() async {
        let text = Recorder()
        #expect(await tool(text).run(["version"]) == 0)
        #expect(text.out == """
            wpexporter 0.1.0
              swift:    6.x
              platform: linux/x86_64
              built:    2026-01-02T03:04:05
              commit:   abc123

            """)
        let json = Recorder()
        #expect(await tool(json).run(["version", "--format=json"]) == 0)
        #expect(json.out == #"{"arch":"x86_64","build_date":"2026-01-02T03:04:05","git_commit":"abc123","platform":"linux","swift":"6.x","version":"0.1.0"}"# + "\n")
    }

    @Test func buildDateIsISO() {
        #expect(BuildInfo.isoDate(date: "Nov  2 2026", time: "02:50:07") == "2026-11-02T02:50:07")
        #expect(BuildInfo.isoDate(date: "Dec 31 2025", time: "23:59:59") == "2025-12-31T23:59:59")
        #expect(BuildInfo.isoDate(date: "garbage", time: "t") == "garbage t")
        #expect(BuildInfo.current.version == BuildInfo.exporterVersion)
        #expect(!BuildInfo.current.gitCommit.isEmpty)
    }
}
