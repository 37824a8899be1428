import Testing
import WPTestThreads
@testable import WPConfig

/// `snmp.system.*`: the agent's sysName, sysContact and sysLocation, nested in the file under
/// `snmp: system:` or set by variable and flag; a value an SNMP DisplayString cannot carry
/// (longer than 255 bytes, a control character) is refused naming its key.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct SNMPSystemConfigurationTests {
    @Test func theSystemGroupIsReadNestedFromTheFile() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(file: """
            snmp:
              default_ups: rack-a
              system:
                name: ups-gateway
                contact: "Facilities <ops@example.com>"
                location: Hall 2, room 014
            """))
        let snmp = loaded.configuration.snmp
        #expect(snmp.defaultUPS == "rack-a")
        #expect(snmp.systemName == "ups-gateway")
        #expect(snmp.systemContact == "Facilities <ops@example.com>")
        #expect(snmp.systemLocation == "Hall 2, room 014")
        let defaults = try ConfigurationLoader.load(TestInputs.make()).configuration.snmp
        #expect(defaults.systemName == nil && defaults.systemContact.isEmpty && defaults.systemLocation.isEmpty)
    }

    @Test func variablesAndFlagsSetThemToo() throws {
        let loaded = try ConfigurationLoader.load(TestInputs.make(flags: [("--snmp.system.location", "rack 7")],
                                                                  environment: ["WINPOWER_EXPORTER_SNMP_SYSTEM_CONTACT": "noc@example.com"]))
        #expect(loaded.configuration.snmp.systemLocation == "rack 7")
        #expect(loaded.configuration.snmp.systemContact == "noc@example.com")
    }

    @Test func anUnknownKeyInTheGroupIsNamedWithASuggestion() {
        let problems = TestInputs.problems(TestInputs.make(file: "snmp:\n  system:\n    locaton: hall\n"))
        #expect(problems.count == 1)
        #expect(problems.first?.contains("unknown key \"snmp.system.locaton\"") == true, "\(problems)")
        #expect(problems.first?.contains("snmp.system.location") == true, "\(problems)")
    }

    @Test(arguments: ["snmp.system.name", "snmp.system.contact", "snmp.system.location"])
    func valuesADisplayStringCannotCarryAreRefusedNamingTheKey(_ key: String) {
        let field = String(key.split(separator: ".").last ?? "")
        let long = String(repeating: "é", count: 128) // 256 bytes
        let tooLong = TestInputs.problems(TestInputs.make(file: "snmp:\n  system:\n    \(field): \(long)\n"))
        #expect(tooLong.count == 1 && tooLong.first?.contains(key) == true, "\(tooLong)")
        #expect(tooLong.first?.contains("is 256 bytes long; an SNMP DisplayString holds at most 255") == true, "\(tooLong)")
        let control = TestInputs.problems(TestInputs.make(file: "snmp:\n  system:\n    \(field): \"hall\\tB\"\n"))
        #expect(control.count == 1 && control.first?.contains(key) == true, "\(control)")
        #expect(control.first?.contains("contains a control character") == true, "\(control)")
        #expect(TestInputs.problems(TestInputs.make(file: "snmp:\n  system:\n    \(field): \(long.dropLast())\n")).isEmpty,
                "254 bytes fit")

        var configuration = ExporterConfiguration()
        configuration.winPower.baseURL = "https://winpower.example.com"
        switch key {
        case "snmp.system.name": configuration.snmp.systemName = "a\nb"
        case "snmp.system.contact": configuration.snmp.systemContact = "a\nb"
        default: configuration.snmp.systemLocation = "a\nb"
        }
        #expect(configuration.problems().contains { $0.description.contains(key) && $0.description.contains("control character") },
                "a configuration built in code is checked alike")
    }
}
