import Testing
import WPTestThreads
@testable import WPConfig

/// `winpower.max_devices`, `winpower.max_pages` and `winpower.max_text_bytes`: defaults, the
/// file, the environment, per `servers` entry, and values out of range refused by name.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DeviceBoundsConfigurationTests {
    @Test func defaultsReachTenThousandDevicesAtTwentyPerPage() throws {
        let loaded = try ServersConfigurationTests.load("winpower:\n  base_url: https://wp.example\n  username: u\n  password: p\n")
        let winPower = loaded.configuration.winPower
        #expect(winPower.maxDevices == 10_000)
        #expect(winPower.maxPages == 1_000)
        #expect(winPower.maxPages * 20 >= winPower.maxDevices)
        #expect(winPower.maxTextBytes == 256)
        let table = loaded.effectiveSettingsTable()
        for key in ["winpower.max_devices", "winpower.max_pages", "winpower.max_text_bytes"] {
            #expect(table.contains(key), "check-config lists \(key)")
        }
    }

    @Test func fileEnvironmentAndPerEntryValues() throws {
        let file = """
        winpower:
          username: u
          password: p
          max_devices: 500
        servers:
          - name: east
            base_url: https://east.example
          - name: west
            base_url: https://west.example
            max_devices: 20000
            max_pages: 2000
            max_text_bytes: 1024

        """
        let loaded = try ServersConfigurationTests.load(file, environment: ["WINPOWER_EXPORTER_WINPOWER_MAX_TEXT_BYTES": "128"])
        let (east, west) = (loaded.configuration.servers[0].winPower, loaded.configuration.servers[1].winPower)
        #expect(east.maxDevices == 500 && east.maxPages == 1_000 && east.maxTextBytes == 128)
        #expect(west.maxDevices == 20_000 && west.maxPages == 2_000 && west.maxTextBytes == 1_024)
        #expect(loaded.settings["winpower.max_text_bytes"]?.source == .environment("WINPOWER_EXPORTER_WINPOWER_MAX_TEXT_BYTES"))
    }

    @Test(arguments: [("max_devices", "0"), ("max_pages", "0"), ("max_text_bytes", "63"), ("max_text_bytes", "65537"),
                      ("max_devices", "many")])
    func outOfRangeValuesAreRefusedByName(key: String, value: String) {
        let problems = ServersConfigurationTests.problems(
            "winpower:\n  base_url: https://wp.example\n  username: u\n  password: p\n  \(key): \(value)\n")
        #expect(problems.count == 1)
        #expect(problems.first?.contains("winpower.\(key)") == true, "\(problems)")
        #expect(problems.first?.contains("config.yaml:5:") == true, "\(problems)")
    }
}
