import Testing
import WPTestThreads
import WPConfig
@testable import WPExporter
@testable import wpexporter

private func usageError(_ arguments: [String]) -> UsageError? {
    do {
        _ = try CommandParser.parse(arguments)
        return nil
    } catch {
        return error
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CommandParserTests {
    @Test func longFlagsInBothFormsAndBooleans() throws {
        let command = try CommandParser.parse([
            "server", "--winpower.base_url=https://a.example", "--port", "9100", "--skip-ssl-verify",
            "--sync-write=false", "-c", "/etc/wp.yaml", "--log-level=debug", "--winpower.password", "--dash-start",
        ])
        #expect(command == .server(ConfigurationOptions(configPath: "/etc/wp.yaml", flags: [
            .init("--winpower.base_url", "https://a.example"), .init("--port", "9100"), .init("--skip-ssl-verify", "true"),
            .init("--sync-write", "false"), .init("--log-level", "debug"), .init("--winpower.password", "--dash-start"),
        ])))
    }

    @Test func configPathForms() throws {
        #expect(try CommandParser.parse(["demo", "--config=/a.yaml"]) == .demo(ConfigurationOptions(configPath: "/a.yaml")))
        #expect(try CommandParser.parse(["demo", "-c=/b.yaml"]) == .demo(ConfigurationOptions(configPath: "/b.yaml")))
        #expect(try CommandParser.parse(["check-config", "--config", "c.yaml", "--"]) == .checkConfig(ConfigurationOptions(configPath: "c.yaml")))
    }

    @Test(arguments: [
        (["server", "--winpower.baseurl", "x"], "server", "unknown flag --winpower.baseurl; did you mean --winpower.base_url?"),
        (["server", "--winpower.base-url=x"], "server", "unknown flag --winpower.base-url; did you mean --winpower.base_url?"),
        (["check-config", "--prot", "1"], "check-config", "unknown flag --prot; did you mean --port?"),
        (["server", "--port"], "server", "flag --port needs a value"),
        (["server", "extra"], "server", "unexpected argument \"extra\""),
        (["server", "--", "extra"], "server", "unexpected argument \"extra\""),
        (["server", "-x"], "server", "unknown flag -x"),
        (["server", "-config", "a.yaml"], "server", "unknown flag -config; did you mean --config?"),
        (["server", "-port=1"], "server", "unknown flag -port; did you mean --port?"),
        (["server", "--config="], "server", "flag --config needs a path"),
        (["severe"], nil, "unknown command \"severe\"; did you mean \"server\"?"),
        (["--verbose"], nil, "unknown flag \"--verbose\""),
        ([], nil, "missing command; one of server, demo, simulate, check-config, healthcheck, version, help"),
        (["version", "--format", "yaml"], "version", "--format must be text or json, not \"yaml\""),
        (["version", "--formt=json"], "version", "unknown flag --formt; did you mean --format?"),
        (["help", "servr"], "help", "unknown help topic \"servr\"; one of server, demo, simulate, check-config, healthcheck, version, help, configuration; did you mean \"server\"?"),
        (["simulate", "--devices", "many"], "simulate", "--devices must be a whole number from 0 to 100000, not \"many\""),
        (["simulate", "--port=70000"], "simulate", "--port must be a whole number from 0 to 65535, not \"70000\""),
        (["simulate", "--token-lifetime", "30"], "simulate", "--token-lifetime must be a positive duration such as 30m, not \"30\""),
        (["simulate", "--faults", "x"], "simulate", "unknown flag --faults; did you mean --fault?"),
        (["simulate", "--servers", "0"], "simulate", "--servers must be a whole number from 1 to 1000, not \"0\""),
    ] as [([String], String?, String)])
    func usageErrors(arguments: [String], command: String?, message: String) {
        let error = usageError(arguments)
        #expect(error == UsageError(command: command, message: message))
    }

    @Test func usageErrorPointsAtHelp() {
        #expect(UsageError(command: "server", message: "bad").description
                == "wpexporter server: bad\nRun 'wpexporter server --help' for usage.")
    }

    @Test func helpEverywhere() throws {
        #expect(try CommandParser.parse(["--help"]) == .help(nil))
        #expect(try CommandParser.parse(["-h"]) == .help(nil))
        #expect(try CommandParser.parse(["help"]) == .help(nil))
        #expect(try CommandParser.parse(["help", "configuration"]) == .help("configuration"))
        #expect(try CommandParser.parse(["help", "--help"]) == .help("help"))
        #expect(try CommandParser.parse(["help", "-h"]) == .help("help"))
        for command in ["server", "demo", "simulate", "check-config", "version"] {
            #expect(try CommandParser.parse([command, "--help"]) == .help(command))
            #expect(try CommandParser.parse([command, "--port=1", "-h"]) == .help(command))
        }
        #expect(usageError(["server", "--", "--help"]) != nil)
    }

    @Test func version() throws {
        #expect(try CommandParser.parse(["version"]) == .version(json: false))
        #expect(try CommandParser.parse(["version", "--format", "json"]) == .version(json: true))
        #expect(try CommandParser.parse(["version", "--format=text"]) == .version(json: false))
        #expect(try CommandParser.parse(["--version"]) == .version(json: false))
    }

    @Test func simulatorDefaultsAndFlags() throws {
        #expect(try CommandParser.parse(["simulate"]) == .simulate(SimulatorOptions()))
        let defaults = SimulatorOptions()
        #expect(defaults.host == "127.0.0.1" && defaults.port == 8081 && defaults.devices == 3 && defaults.pageSize == 20)
        #expect(defaults.tokenLifetime == .seconds(1800) && defaults.username == "admin" && defaults.password.reveal() == "admin")
        let parsed = try CommandParser.parse([
            "simulate", "--host=0.0.0.0", "--port", "0", "--devices", "7", "--page-size=2", "--token-lifetime", "90s",
            "--username", "u", "--password=p", "--fault", "slow-login", "--fault=drop-page",
        ])
        var expected = SimulatorOptions()
        expected.host = "0.0.0.0"
        expected.port = 0
        expected.devices = 7
        expected.pageSize = 2
        expected.tokenLifetime = .seconds(90)
        expected.username = "u"
        expected.password = Secret("p")
        expected.faults = ["slow-login", "drop-page"]
        #expect(parsed == .simulate(expected))
        let fleet = try CommandParser.parse(["simulate", "--servers", "4", "--fault-server", "1=down,2=hang",
                                             "--fault-server=3=rejects-password"])
        var expectedFleet = SimulatorOptions()
        expectedFleet.servers = 4
        expectedFleet.serverFaults = ["1=down,2=hang", "3=rejects-password"]
        #expect(fleet == .simulate(expectedFleet))
    }

    @Test func everyConfigurationFlagIsAccepted() throws {
        for flag in ConfigKey.allFlags {
            guard case .server(let options) = try CommandParser.parse(["server", flag + "=v"]) else {
                Issue.record("\(flag)")
                continue
            }
            #expect(options.flags == [.init(flag, "v")])
        }
    }
}

@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ExitCodeTests {
    @Test func errorsMapToExitCodes() {
        #expect(ExitCode.forError(UsageError(command: nil, message: "x")) == .usage)
        #expect(ExitCode.forError(ConfigurationError(problems: [])) == .configuration)
        #expect(ExitCode.forError(HealthcheckFailure.portZero) == .runtimeFailure)
        #expect(ExitCode.forError(ExporterError.client(server: "a", reason: "x")) == .runtimeFailure)
        #expect(ExitCode.forError(CancellationError()) == .runtimeFailure)
        #expect(ExitCode.forError(ExporterError.energyNotSaved(reason: "x", lastSaved: "y")) == .energyNotSaved)
        #expect(ExitCode.energyNotSaved.rawValue == 74)
        #expect(ExitCode.usage.rawValue == 64)
        #expect(ExitCode.configuration.rawValue == 78)
        #expect(ExitCode.runtimeFailure.rawValue == 1)
        #expect(ExitCode.success.rawValue == 0)
    }
}
