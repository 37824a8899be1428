import Testing
@testable import WPConfig

/// The keys of issue-level device selection and readings: `winpower.area_id`,
/// `include_sub_area`, `passthrough_readings` and the caps, in `winpower` and per entry.
@Suite struct DeviceSelectionConfigurationTests {
    @Test func defaultsListTheRootAreaWithSubAreasAndPassReadingsThrough() throws {
        let loaded = try ServersConfigurationTests.load("winpower:\n  base_url: https://wp.example\n  username: u\n  password: p\n")
        let winPower = loaded.configuration.winPower
        #expect(winPower.areaId == "00000000-0000-0000-0000-000000000000")
        #expect(winPower.includeSubArea)
        #expect(winPower.passthroughReadings)
        #expect(winPower.maxReadingsPerDevice == 64 && winPower.maxReadingsPerServer == 4_096)
    }

    @Test func fileValuesAndPerEntryOverridesWithTheirSources() throws {
        let file = """
        winpower:
          username: u
          password: p
          area_id: 5B2C0A1E-0000-4000-8000-000000000001
          passthrough_readings: false
        servers:
          - name: east
            base_url: https://east.example
          - name: west
            base_url: https://west.example
            area_id: a0000000-0000-4000-8000-000000000002
            include_sub_area: false
            passthrough_readings: true
            max_readings_per_device: 10
            max_readings_per_server: 100

        """
        let loaded = try ServersConfigurationTests.load(file)
        let (east, west) = (loaded.configuration.servers[0].winPower, loaded.configuration.servers[1].winPower)
        #expect(east.areaId == "5B2C0A1E-0000-4000-8000-000000000001" && east.includeSubArea && !east.passthroughReadings)
        #expect(west.areaId == "a0000000-0000-4000-8000-000000000002" && !west.includeSubArea && west.passthroughReadings)
        #expect(west.maxReadingsPerDevice == 10 && west.maxReadingsPerServer == 100)
        let rows = Dictionary(uniqueKeysWithValues: loaded.servers[1].rows.map { ($0.key, $0.source) })
        #expect(rows["area_id"] == "file ./config.yaml:11:14")
        #expect(rows["include_sub_area"] == "file ./config.yaml:12:23")
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("winpower.area_id") && table.contains("5B2C0A1E-0000-4000-8000-000000000001"))
    }

    @Test(arguments: [
        ("winpower:\n  area_id: \"../x?y\"\n", #"./config.yaml:2:12: winpower.area_id: "../x?y" must be a WinPower area id: 1 to 64 hexadecimal digits and '-' (a uuid, e.g. 00000000-0000-0000-0000-000000000000)"#),
        ("servers:\n  - name: a\n    area_id: \"a b\"\n", #"./config.yaml:3:14: servers[0].area_id: "a b" must be a WinPower area id: 1 to 64 hexadecimal digits and '-' (a uuid, e.g. 00000000-0000-0000-0000-000000000000)"#),
        ("winpower:\n  max_readings_per_device: 5000\n", "./config.yaml:2:28: winpower.max_readings_per_device: 5000 is out of range; must be 0–1024"),
        ("winpower:\n  include_sub_area: maybe\n", "./config.yaml:2:21: winpower.include_sub_area: \"maybe\" must be true or false"),
    ])
    func invalidValuesStopStartupWithTheirPosition(file: String, expected: String) {
        let defaults = file.hasPrefix("servers") ? "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\n"
                                                 : "  base_url: https://b.example\n  username: u\n  password: p\n"
        #expect(ServersConfigurationTests.problems(file + defaults) == [expected])
    }
}
