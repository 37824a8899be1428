import Testing
import WPTestThreads
@testable import WPConfig

/// `ExporterConfiguration.problems()`: a configuration built in code meets the rules a file
/// meets, with the same messages, each problem named by its key.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct TypedValidationTests {
    /// A valid configuration with one server.
    static func valid() -> ExporterConfiguration {
        var configuration = ExporterConfiguration()
        configuration.winPower.baseURL = "http://127.0.0.1:8081"
        configuration.winPower.username = "admin"
        configuration.winPower.password = Secret("pw")
        return configuration
    }

    static func entry(_ name: String) -> ServerEntry {
        var winPower = ExporterConfiguration.WinPower()
        winPower.baseURL = "http://127.0.0.1:8081"
        winPower.username = "admin"
        winPower.password = Secret("pw")
        return ServerEntry(name: name, winPower: winPower)
    }

    @Test func theDefaultsWithAServerAreValid() {
        #expect(Self.valid().problems().isEmpty)
        var two = Self.valid()
        two.servers = [Self.entry("a"), Self.entry("b")]
        #expect(two.problems().isEmpty)
    }

    /// What an embedder got through before: every problem at once, named by key.
    @Test func duplicateNamesZeroIntervalAndNegativeTimeoutAreAllReported() {
        var configuration = Self.valid()
        configuration.servers = [Self.entry("a"), Self.entry("a")]
        configuration.scheduler.collectionInterval = .zero
        configuration.scheduler.gracefulShutdownTimeout = .seconds(-1)
        #expect(configuration.problems().map(\.description) == [
            "scheduler.collection_interval: 0s is too short; must be at least 1s",
            "servers[1].name: \"a\" is already the name of servers[0]; names must be unique",
            "scheduler.graceful_shutdown_timeout: -1s must be greater than 0",
        ])
    }

    @Test func nutListenWithoutAPortIsAProblemNotASilentlyDisabledServer() {
        var configuration = Self.valid()
        configuration.nut.listen = "127.0.0.1"
        #expect(configuration.problems().map(\.description)
                == ["nut.listen: \"127.0.0.1\" is not host:port with a port 0–65535 (e.g. :3493 or 127.0.0.1:3493)"])
    }

    @Test func aServerWithoutURLOrCredentialsNamesEachKey() {
        var configuration = ExporterConfiguration()
        configuration.servers = [ServerEntry(name: "x", winPower: .init())]
        #expect(configuration.problems().map(\.description) == [
            "servers[0].base_url: is required", "servers[0].username: is required",
            "servers[0].password: is required (or password_file)",
        ])
    }

    /// The same value gets the same message from a file (with its position) and from code.
    @Test(arguments: [
        ("scheduler:\n  collection_interval: 500ms\n", "scheduler.collection_interval"),
        ("server:\n  port: 70000\n", "server.port"),
        ("winpower:\n  api_timeout: 40s\n", "winpower.api_timeout"),
        ("server:\n  metrics_path: /health\n", "server.metrics_path"),
        ("nut:\n  battery_charge_low: 101\n", "nut.battery_charge_low"),
        ("winpower:\n  max_devices: 0\n", "winpower.max_devices"),
    ])
    func aFileAndCodeGetTheSameMessage(file: String, key: String) throws {
        let fromFile = TestInputs.problems(TestInputs.make(file: file))
        try #require(fromFile.count == 1, "\(fromFile)")
        var configuration = Self.valid()
        switch key {
        case "scheduler.collection_interval": configuration.scheduler.collectionInterval = .milliseconds(500)
        case "server.port": configuration.server.port = 70000
        case "winpower.api_timeout": configuration.winPower.apiTimeout = .seconds(40)
        case "server.metrics_path": configuration.server.metricsPath = "/health"
        case "winpower.max_devices": configuration.winPower.maxDevices = 0
        default: configuration.nut.batteryChargeLow = 101
        }
        let fromCode = configuration.problems()
        try #require(fromCode.count == 1, "\(fromCode)")
        #expect(fromCode[0].key == key)
        #expect(fromFile[0].hasSuffix(fromCode[0].description), "file: \(fromFile[0]); code: \(fromCode[0])")
    }

    @Test func passwordsNeverAppearInProblems() {
        var configuration = Self.valid()
        configuration.winPower.password = Secret("s3cret\u{0}tail")
        configuration.winPower.baseURL = "http://user:hunter2@[bad"
        let text = configuration.problems().map(\.description).joined(separator: "\n")
        #expect(!text.isEmpty)
        #expect(!text.contains("s3cret"))
        #expect(!text.contains("hunter2"))
    }
}
