import Foundation
import Testing
import WPTestThreads
import WPConfig
import WPLogging
import WPServer
import WPExporter
@testable import wpexporter

/// The executable's own process policy: the addresses it prints and the secrets of its log
/// (its signal handling is WPProcess', tested there).
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct ProcessPolicyTests {
    /// Every password of the configuration is masked in logs: WinPower's, each server's, the
    /// Pushgateway's; a reload replaces them.
    @Test func everyPasswordIsASecretOfTheLog() {
        var configuration = ExporterConfiguration()
        configuration.winPower.password = Secret("wp-Secret-1")
        configuration.push.password = Secret("push-Secret-2")
        var entry = ServerEntry(name: "east", winPower: configuration.winPower)
        entry.winPower.password = Secret("east-Secret-3")
        configuration.servers = [entry]
        let redactor = Redactor()
        ExporterSecrets.register(configuration, in: redactor)
        let line = redactor.redact("wp-Secret-1 push-Secret-2 east-Secret-3")
        for secret in ["wp-Secret-1", "push-Secret-2", "east-Secret-3"] { #expect(!line.contains(secret), "\(secret)") }
        configuration.push.password = Secret("push-Rotated-4")
        ExporterSecrets.register(configuration, in: redactor)
        #expect(!redactor.redact("push-Rotated-4").contains("push-Rotated-4"))
        #expect(redactor.redact("push-Secret-2").contains("push-Secret-2"), "a replaced password is no longer a secret")
    }

    /// A secret key of a section a front end declares is a secret of the log too, replaced when
    /// it changes, gone when it is unset; and the tool's `check-config` table masks it.
    @Test func aDeclaredSectionsSecretIsASecretOfTheLog() throws {
        struct Relay: ConfigSectionSettings {
            var token: Secret?
            static let section = ConfigSection<Relay>("relay", [.secret("token", \.token, "Token of the relay.")])
        }
        var configuration = ExporterConfiguration()
        configuration[section: Relay.self].token = Secret("relay-Secret-5")
        let redactor = Redactor()
        ExporterSecrets.register(configuration, in: redactor)
        #expect(!redactor.redact("token relay-Secret-5").contains("relay-Secret-5"))
        configuration[section: Relay.self].token = Secret("relay-Rotated-6")
        ExporterSecrets.register(configuration, in: redactor)
        #expect(!redactor.redact("relay-Rotated-6").contains("relay-Rotated-6"))
        #expect(redactor.redact("relay-Secret-5").contains("relay-Secret-5"), "a replaced token is no longer a secret")
        configuration[section: Relay.self].token = nil
        ExporterSecrets.register(configuration, in: redactor)
        #expect(redactor.redact("relay-Rotated-6").contains("relay-Rotated-6"), "an unset token is no longer a secret")
        let schema = ConfigSchema.tool.adding(Relay.self)
        let loaded = try ConfigurationLoader.load(ConfigurationInputs(
            environment: ["WINPOWER_EXPORTER_RELAY_TOKEN": "relay-Secret-7"], files: .inMemory([:]), purpose: .demo, schema: schema))
        let table = loaded.effectiveSettingsTable()
        #expect(table.contains("relay.token") && table.contains("history.enabled") && !table.contains("relay-Secret-7"), "\(table)")
    }

    @Test func wildcardAddressesPrintAsLocalhost() {
        #expect(RuntimeCommands.url(ServerAddress(host: "0.0.0.0", port: 9090), "/metrics") == "http://localhost:9090/metrics")
        #expect(RuntimeCommands.url(ServerAddress(host: "::1", port: 1)) == "http://[::1]:1")
    }
}
