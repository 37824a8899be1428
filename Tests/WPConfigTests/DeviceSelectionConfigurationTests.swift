import Testing
import WPTestThreads
@testable import WPConfig

/// The keys of issue-level device selection and readings: `winpower.area_id`,
/// `include_sub_area`, `passthrough_readings` and the caps, in `winpower` and per entry.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DeviceSelectionConfigurationTests {
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

    static let devicesFile = """
        winpower:
          username: u
          password: p
          base_url: https://wp.example
          devices:
            include: [id-1, id-2]
            exclude:
              - id-9
            include_aliases: ["Hall *"]
            exclude_aliases: ["Test*", '*\\*']
            overrides:
              id-1:
                name: Hall 1 UPS A
                labels:
                  rack: r12
                  room: "2.14"
              id-2:
                labels:
                  rack: r7
        servers:
          - name: east
          - name: west
            labels:
              site: west
            devices:
              exclude_aliases: ["Spare*"]

        """

    @Test func devicesAreReadWithTheirSourcesAndInheritedByEntries() throws {
        let loaded = try ServersConfigurationTests.load(Self.devicesFile)
        let devices = loaded.configuration.winPower.devices
        #expect(devices.include == ["id-1", "id-2"] && devices.exclude == ["id-9"])
        #expect(devices.includeAliases == ["Hall *"] && devices.excludeAliases == ["Test*", "*\\*"])
        #expect(devices.overrides["id-1"] == DeviceSelection.Override(name: "Hall 1 UPS A",
                                                                       labels: [.init(name: "rack", value: "r12"), .init(name: "room", value: "2.14")]))
        #expect(devices.overrides["id-2"]?.labels == [.init(name: "rack", value: "r7")])
        #expect(devices.labelNames == ["rack", "room"])
        let (east, west) = (loaded.configuration.servers[0].winPower.devices, loaded.configuration.servers[1].winPower.devices)
        #expect(east == devices, "an entry without devices takes winpower's")
        #expect(west == DeviceSelection(excludeAliases: ["Spare*"]), "an entry's own devices replace winpower's")
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("winpower.devices.include"))
        #expect(table.contains("id-1, id-2") && table.contains("file ./config.yaml:6:14"))
        #expect(table.contains("winpower.devices.overrides.id-1.labels.rack"))
        let eastRows = Dictionary(uniqueKeysWithValues: loaded.servers[0].rows.map { ($0.key, $0.source) })
        #expect(eastRows["devices.include"] == "winpower (file ./config.yaml:6:14)")
        let westRows = Dictionary(uniqueKeysWithValues: loaded.servers[1].rows.map { ($0.key, $0.source) })
        #expect(westRows["devices.exclude_aliases"] == "file ./config.yaml:26:24")
        #expect(westRows["devices.include"] == nil)
    }

    @Test(arguments: [
        ("    include_aliases: [\"Hall \\\\\"]\n", #"./config.yaml:6:23: winpower.devices.include_aliases: "Hall \\" ends with a lone '\' (write '\\' for a backslash)"#),
        ("    exclude_aliases: [\"\"]\n", #"./config.yaml:6:23: winpower.devices.exclude_aliases: every item must be a non-empty single value, found a scalar"#),
        ("    include: id-1\n", "./config.yaml:6:14: winpower.devices.include: must be a list ([a, b] or '- a' lines), found a scalar"),
        ("    include: [a]\n    exclude: [a]\n", "./config.yaml:7:15: winpower.devices.exclude: \"a\" is already in winpower.devices.include (./config.yaml:6:15); a device id may be listed once"),
        ("    exclud: [a]\n", #"./config.yaml:6:5: unknown key "winpower.devices.exclud"; winpower.devices holds include, exclude, include_aliases, exclude_aliases, overrides, battery; did you mean "exclude"?"#),
        ("    overrides:\n      a:\n        labels:\n          1x: y\n", #"./config.yaml:9:11: winpower.devices.overrides.a.labels.1x: "1x" is not a Prometheus label name; must match [a-zA-Z_][a-zA-Z0-9_]*"#),
        ("    overrides:\n      a:\n        labels:\n          phase: y\n", #"./config.yaml:9:11: winpower.devices.overrides.a.labels.phase: "phase" is a label the exporter or Prometheus sets; choose another name (reserved: alarm_code, code, command, configuration, device_id, device_name, device_type, endpoint, error_type, fault_code, firmware_version, handler, instance, job, key, le, method, mode, model, outcome, phase, quantile, reason, result, section, server)"#),
        ("    overrides:\n      a:\n        name: \"\"\n", "./config.yaml:8:15: winpower.devices.overrides.a.name: must be a non-empty single value, found a scalar"),
        ("    overrides:\n      a:\n        nmae: x\n", #"./config.yaml:8:9: unknown key "winpower.devices.overrides.a.nmae"; an override holds name, labels, battery; did you mean "name"?"#),
        ("    overrides:\n      a:\n        battery: {installed: 2024-02-30}\n",
         #"./config.yaml:8:30: winpower.devices.overrides.a.battery.installed: "2024-02-30" is not a day; write it YYYY-MM-DD, e.g. 2024-03-01"#),
        ("    battery: {installed: 2024-03-01, life: 4 years}\n",
         #"./config.yaml:6:44: winpower.devices.battery.life: "4 years" is not a battery life; write years, months and days as 4y, 3y6mo, 18mo or 1460d (at most 100y)"#),
        ("    battery: {install: 2024-03-01}\n",
         #"./config.yaml:6:15: unknown key "winpower.devices.battery.install"; a battery holds installed, life; did you mean "installed"?"#),
        ("    battery: 2024-03-01\n", "./config.yaml:6:14: winpower.devices.battery: must be a mapping with installed: and/or life:, found a scalar"),
        ("    battery: {installed: [2024-03-01]}\n", "./config.yaml:6:26: winpower.devices.battery.installed: must be a single value, found a sequence"),
        ("    overrides: [a]\n", "./config.yaml:6:16: winpower.devices.overrides: must be a mapping of device ids to name: and labels:, found a sequence"),
    ])
    func invalidDevicesStopStartupWithTheirPosition(devices: String, expected: String) {
        let file = "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\n  devices:\n" + devices
        #expect(ServersConfigurationTests.problems(file) == [expected])
    }

    @Test func batteriesAreReadWithTheirSourcesAndADeviceTakesWhatItsOwnLeavesUnset() throws {
        let file = """
            winpower:
              base_url: https://b.example
              username: u
              password: p
              devices:
                battery: {installed: 2023-06-15, life: 5y}
                overrides:
                  id-1:
                    battery:
                      installed: 2024-03-01
                  id-2:
                    name: Rack B
                    battery: {life: 3y6mo}

            """
        let loaded = try ServersConfigurationTests.load(file)
        let devices = loaded.configuration.winPower.devices
        #expect(devices.battery == DeviceSelection.Battery(installed: "2023-06-15", life: "5y"))
        #expect(devices.overrides["id-1"]?.battery == DeviceSelection.Battery(installed: "2024-03-01"))
        #expect(devices.overrides["id-2"]?.battery == DeviceSelection.Battery(life: "3y6mo"))
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("winpower.devices.battery.installed") && table.contains("2023-06-15"))
        #expect(table.contains("winpower.devices.overrides.id-1.battery.installed") && table.contains("file ./config.yaml:10:22"))
        #expect(table.contains("winpower.devices.overrides.id-2.battery.life"))
    }

    @Test func aBatteryInstalledAfterTodayIsRefused() {
        let file = "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\n  devices:\n    battery: {installed: 2026-12-01}\n"
        let today: Int64 = 20_784 // 2026-11-27
        #expect(ServersConfigurationTests.problems(file, today: today) == [
            #"./config.yaml:6:26: winpower.devices.battery.installed: "2026-12-01" is after today; the day the battery was installed (or last replaced) has passed"#,
        ])
        let onTheDay = "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\n  devices:\n    battery: {installed: 2026-11-27}\n"
        #expect(ServersConfigurationTests.problems(onTheDay, today: today).isEmpty)
    }

    @Test func aDeviceLabelMayNotRepeatAnEntryLabel() {
        let file = "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\n"
            + "servers:\n  - name: a\n    labels:\n      rack: all\n    devices:\n      overrides:\n        id-1:\n          labels:\n            rack: r1\n"
        #expect(ServersConfigurationTests.problems(file) == [
            #"./config.yaml:13:19: servers[0].devices.overrides.id-1.labels.rack: "rack" is also a label of servers[0] (servers[0].labels.rack, ./config.yaml:8:13); a series cannot carry a label twice"#,
        ])
    }

    @Test func nutUPSGivesNamesAndThresholdsWithTheirSources() throws {
        let file = "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\n"
            + "nut:\n  ups:\n    id-1:\n      name: Rack-A1\n      battery_charge_low: 35\n      battery_runtime_low: 10m\n"
            + "    id-2:\n      battery_runtime_low: 5m\n"
        let loaded = try ServersConfigurationTests.load(file)
        #expect(loaded.configuration.nut.ups["id-1"] == .init(name: "Rack-A1", batteryChargeLow: 35, batteryRuntimeLow: .seconds(600)))
        #expect(loaded.configuration.nut.ups["id-2"] == .init(batteryRuntimeLow: .seconds(300)))
        let table = loaded.effectiveSettingsTable()
        let line = try #require(table.split(separator: "\n").first { $0.hasPrefix("nut.ups.id-1.name") })
        #expect(line.contains("Rack-A1") && line.contains("file ./config.yaml:8:13"))
        let lines = table.split(separator: "\n").map(String.init)
        let lastNUTKey = try #require(lines.lastIndex { $0.hasPrefix("nut.max_connections") })
        #expect(lines[lastNUTKey + 1].hasPrefix("nut.ups."), "after the nut keys")
    }

    @Test(arguments: [
        ("    id-1:\n      name: \"two words\"\n", #"./config.yaml:8:13: nut.ups.id-1.name: "two words" must be 1 to 32 characters from A-Z, a-z, 0-9, '_', '.' and '-', not starting with '-' or '.'"#),
        ("    id-1:\n      name: a\n    id-2:\n      name: A\n", #"./config.yaml:10:13: nut.ups.id-2.name: "A" is already the name of nut.ups.id-1.name (./config.yaml:8:13); NUT names are unique, in any case"#),
        ("    id-1:\n      battery_charge_low: 120\n", "./config.yaml:8:27: nut.ups.id-1.battery_charge_low: 120 is out of range; must be 0–100"),
        ("    id-1:\n      battery_runtime_low: 25h\n", "./config.yaml:8:28: nut.ups.id-1.battery_runtime_low: 25h must be between 0s and 24h"),
        ("    id-1:\n      nmae: x\n", #"./config.yaml:8:7: unknown key "nut.ups.id-1.nmae"; a UPS holds name, battery_charge_low, battery_runtime_low; did you mean "name"?"#),
        ("    id-1: x\n", "./config.yaml:7:11: nut.ups.id-1: must be a mapping with name, battery_charge_low, battery_runtime_low, found a scalar"),
        ("    id-1:\n      name: UPS\n  default_ups: id-2\n", #"./config.yaml:8:13: nut.ups.id-1.name: "UPS" is the name nut.default_ups gives id-2; name this device otherwise, or make it nut.default_ups"#),
    ])
    func invalidNUTUPSStopsStartupWithItsPosition(entry: String, expected: String) {
        let file = "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\nnut:\n  ups:\n" + entry
        #expect(ServersConfigurationTests.problems(file) == [expected])
    }

    /// The default device itself may be named `ups`: the alias and its name are the same UPS.
    @Test func theDefaultDeviceMayBeNamedUps() {
        let file = "winpower:\n  base_url: https://b.example\n  username: u\n  password: p\nnut:\n  ups:\n"
            + "    id-1:\n      name: ups\n  default_ups: id-1\n"
        #expect(ServersConfigurationTests.problems(file) == [])
    }
}
