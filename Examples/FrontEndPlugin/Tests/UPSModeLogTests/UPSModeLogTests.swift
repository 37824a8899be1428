import Testing
import UPSModeLog
import WPConfig
import WPExporter
import WPExporterTesting
import WPFrontEnd
import WPLogging
import WPRuntime
import WPSimulator

/// The front end added from outside the package, run by the exporter against a simulated
/// WinPower whose first UPS loses mains from 20 s to 50 s.
@Suite(.timeLimit(.minutes(2))) struct UPSModeLogTests {
    @Test func anOutageIsTwoChangesOnMetricsAndHealth() async throws {
        let harness = try await ExporterTestHarness(devices: 2, simulator: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 20, length: 30)]
        }, frontEnds: [UPSModeLog<ManualClock>.factory()])
        await harness.collect()                  // t = 0: on line, the first readings
        #expect(!(try await harness.metrics()).contains("example_ups_mode_changes_total{"))
        harness.advance(by: .seconds(25))
        await harness.collect()                  // t = 25 s: on battery
        harness.advance(by: .seconds(35))
        await harness.collect()                  // t = 60 s: back on line
        let metrics = try await harness.metrics()
        let changes = metrics.split(separator: "\n").filter { $0.hasPrefix("example_ups_mode_changes_total{") }
        #expect(changes.count == 2, "\(changes)")
        #expect(changes.contains { $0.contains("mode=\"battery\"") && $0.hasSuffix(" 1") }, "\(changes)")
        #expect(changes.contains { $0.contains("mode=\"line\"") && $0.hasSuffix(" 1") }, "\(changes)")
        let health = try await harness.metrics(path: "/health")
        #expect(health.contains("\"mode_log\":{\"changes\":2}"), "\(health)")
        await harness.shutdown()
    }

    /// Its section `mode_log` is read with the exporter's keys from the file, the environment and
    /// flags (an unknown key of it named with a suggestion), and `ignore_self_tests` leaves a
    /// self-test uncounted.
    @Test func itsSectionIsReadWithTheExportersKeys() async throws {
        let factory = UPSModeLog<ManualClock>.factory()
        let schema = Exporter<ManualClock>.configurationSchema(adding: [factory])
        let file = "winpower:\n  base_url: http://127.0.0.1:1\n  username: admin\n  password: admin\nmode_log:\n  ignore_self_tests: true\n"
        let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: "/etc/wp.yaml", files: .inMemory(["/etc/wp.yaml": file]),
                                                                      schema: schema))
        #expect(loaded.configuration[section: ModeLogSettings.self].ignoreSelfTests)
        #expect(loaded.effectiveSettingsTable().contains("mode_log.ignore_self_tests"))
        let typo = "mode_log:\n  ignore_self_test: true\n"
        do {
            _ = try ConfigurationLoader.load(ConfigurationInputs(configPath: "/etc/wp.yaml", files: .inMemory(["/etc/wp.yaml": typo]),
                                                                 purpose: .demo, schema: schema))
            Issue.record("a misspelt key of mode_log was accepted")
        } catch {
            #expect(error.problems.map(\.description)
                    == [#"/etc/wp.yaml:2:3: unknown key "mode_log.ignore_self_test"; did you mean "mode_log.ignore_self_tests"?"#])
        }
        let harness = try await ExporterTestHarness(devices: 1, simulator: { simulator in
            simulator.outageSchedule = [OutageWindow(device: 0, start: 20, length: 30, role: .batteryTest)]
        }, configuration: { $0[section: ModeLogSettings.self].ignoreSelfTests = true }, frontEnds: [factory])
        await harness.collect()
        harness.advance(by: .seconds(25))
        await harness.collect()                  // a self-test
        harness.advance(by: .seconds(35))
        await harness.collect()                  // back on line
        let health = try await harness.metrics(path: "/health")
        #expect(health.contains("\"mode_log\":{\"changes\":0}"), "\(health)")
        await harness.shutdown()
    }
}

/// docs/front-ends.md's listings, as written there: a service adds the front end to the schema
/// it loads its configuration with and to the exporter's options (compiled, not run).
func addTheFrontEnd(path: String, logger: WPLogger) throws -> Exporter<ContinuousClock> {
    let factories = [UPSModeLog<ContinuousClock>.factory()]
    let schema = Exporter<ContinuousClock>.configurationSchema(adding: factories)
    let loaded = try ConfigurationLoader.load(ConfigurationInputs(configPath: path, files: .system, schema: schema))
    var options = Exporter<ContinuousClock>.Options(logger: logger)
    options.frontEnds = factories
    let exporter = try Exporter(configuration: loaded.configuration, options: options)
    return exporter
}
